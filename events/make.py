#!/usr/bin/env python3
"""Writes the functional, slow and worker sample events from the fast one's shape (API Gateway
REST v1 with Cognito claims, stage prod) and the SQS batch shape. Run from the repository root:
python3 events/make.py. tests/events.rs invokes every file in events/ with cargo lambda invoke."""
import copy
import json

base = json.load(open("events/fast-done.json"))


def rest(name, method, resource, path, body=None, path_params=None, query=None):
    e = copy.deepcopy(base)
    e["resource"] = resource
    e["path"] = path
    e["httpMethod"] = method
    e["pathParameters"] = path_params
    e["queryStringParameters"] = query
    e["multiValueQueryStringParameters"] = {k: [v] for k, v in query.items()} if query else None
    rc = e["requestContext"]
    rc["resourcePath"] = resource
    rc["httpMethod"] = method
    rc["path"] = "/prod" + path
    rc["requestId"] = "req-" + name
    if body is None:
        e["body"] = None
        for h in ("headers", "multiValueHeaders"):
            e[h].pop("content-type", None)
    else:
        e["body"] = body if isinstance(body, str) else json.dumps(body)
    json.dump(e, open(f"events/{name}.json", "w"), indent=2)
    open(f"events/{name}.json", "a").write("\n")


rest("functional-suggest-weight", "POST", "/v1/functional", "/v1/functional",
     {"intent": "SUGGEST_WEIGHT", "exercise_id": "barbell-bench-press", "target_reps": 5})
rest("functional-monitor", "POST", "/v1/functional", "/v1/functional",
     {"event_type": "SET_COMPLETED", "state_diff": {}})
rest("functional-app-event", "POST", "/v1/events", "/v1/events",
     {"type": "card_tapped", "intervention_key": "energy_checkin"})
rest("functional-start-workout", "POST", "/v1/workouts", "/v1/workouts",
     {"name": "Sample", "exercises": [{"exercise_id": "barbell-bench-press", "sets": 3, "reps": 5}]})
rest("functional-active-workout", "GET", "/v1/workouts/active", "/v1/workouts/active")
rest("functional-insights", "GET", "/v1/insights", "/v1/insights", query={"limit": "5"})
rest("functional-bad-body", "POST", "/v1/workouts", "/v1/workouts", "{\"exercises\": 3}")
rest("slow-command", "POST", "/v1/stream", "/v1/stream", {"message": "next"})


def sqs(name, bodies):
    records = []
    for i, body in enumerate(bodies):
        mid = f"{name}-{i + 1}"
        records.append({
            "messageId": mid, "receiptHandle": mid,
            "body": body if isinstance(body, str) else json.dumps(body),
            "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "1795341600000",
                           "SenderId": "AIDASAMPLE", "ApproximateFirstReceiveTimestamp": "1795341600000"},
            "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
            "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:coach-jobs", "awsRegion": "us-east-1",
        })
    json.dump({"Records": records}, open(f"events/{name}.json", "w"), indent=2)
    open(f"events/{name}.json", "a").write("\n")


sqs("worker-workout-completed", [{"type": "workout_completed", "user_id": "demo", "workout_id": "w-sample"}])
sqs("worker-weekly-review", [{"type": "weekly_review", "user_id": "demo", "week_ending": "2026-11-22"}])
sqs("worker-health-metric", [{"type": "health_metric_changed", "user_id": "demo", "metric": "hrv_ms",
                              "value": 38.0, "baseline": 55.0, "observed_at": "2026-11-22T07:00:00Z"}])
sqs("worker-delete-account", [{"type": "delete_account", "user_id": "demo-deleted"}])
sqs("worker-fan-out", [{"type": "weekly_review_fanout", "week_ending": "2026-11-22"}])
sqs("worker-poison", [{"type": "weekly_review", "user_id": "demo", "week_ending": "2026-11-22"},
                      "{not json", {"type": "no_such_job", "user_id": "demo"}])
