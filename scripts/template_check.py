#!/usr/bin/env python3
"""The deployed edge, checked where it cannot be run here. template.yaml goes through the same
SAM transform as `sam deploy` (aws-sam-translator, installed with cfn-lint), and the
CloudFormation it produces must hold what the README's Robustness section promises:

- /v1/stream streams, with an integration timeout equal to the slow function's (not 29 s);
- every API Gateway response (authorizer 401, 403, throttling 429, 502, 504, the defaults)
  renders the project's error envelope {"error":{"code","message"}}, and openapi.yaml lists
  401, 403, 429, 502 and 504 for every operation;
- the Cognito user pool (and the table) survive stack deletion and replacement;
- every function has a log group with the retention parameter (30 days by default);
- no function has a model API key in its environment: the model lanes get the secret's ARN and
  may read only that secret; with MODEL_PROVIDER=bedrock they may invoke only their models'
  foundation-model ARNs;
- the worker's concurrency is capped (reserved, and the queue's maximum);
- API Gateway writes an access log (JSON, with the caller's IP and subject) with the retention;
- the user pool has a password policy and deletion protection, no client reveals whether an
  account exists, and only the smoke-test client allows the admin password flow.

Run by scripts/test.sh after cfn-lint; alone: python3 scripts/template_check.py.
"""
import json
import os
import re
import sys

import yaml
from cfnlint.decode import cfn_yaml
from samtranslator.translator.transform import transform

os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
problems = []


def need(cond, what):
    if not cond:
        problems.append(what)


class Policies:
    """The managed policies SAM attaches, by name (the transform asks IAM otherwise)."""

    def load(self):
        return {
            "AWSLambdaBasicExecutionRole": "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
            "AWSXrayWriteOnlyAccess": "arn:aws:iam::aws:policy/AWSXrayWriteOnlyAccess",
            "AWSLambdaSQSQueueExecutionRole": "arn:aws:iam::aws:policy/service-role/AWSLambdaSQSQueueExecutionRole",
        }


sam = cfn_yaml.load("template.yaml")
sam = json.loads(json.dumps(sam, default=str))
for r in sam["Resources"].values():
    if r["Type"] == "AWS::Serverless::Function":
        r["Properties"]["CodeUri"] = "s3://bucket/code.zip"
cfn = transform(sam, {}, Policies())
res = cfn["Resources"]
params = cfn["Parameters"]
functions = {k: v for k, v in res.items() if v["Type"] == "AWS::Lambda::Function"}

# /v1/stream: streamed, and API Gateway waits as long as the function may run.
api = res["CoachApi"]["Properties"]["Body"]
stream = api["paths"]["/v1/stream"]["post"]["x-amazon-apigateway-integration"]
slow_timeout = functions["SlowFunction"]["Properties"]["Timeout"]
need(stream.get("responseTransferMode") == "STREAM", "/v1/stream is not streamed")
need(
    stream.get("timeoutInMillis") == slow_timeout * 1000,
    f"/v1/stream integration timeout {stream.get('timeoutInMillis')} ms, the function's is {slow_timeout} s",
)
need(slow_timeout * 1000 <= 15 * 60 * 1000, "a stream may last 15 minutes at most")

# API Gateway's own answers in the error envelope.
responses = api.get("x-amazon-apigateway-gateway-responses", {})
statuses = set()
for kind, r in responses.items():
    template = r.get("responseTemplates", {}).get("application/json", "")
    # $context.error.messageString is a quoted JSON string, e.g. "Unauthorized".
    rendered = template.replace("$context.error.messageString", json.dumps("Unauthorized"))
    try:
        body = json.loads(rendered)
        ok = re.fullmatch(r"[A-Z_]+", body["error"]["code"]) and isinstance(body["error"]["message"], str)
    except (ValueError, KeyError, TypeError):
        ok = False
    need(ok, f"gateway response {kind} does not render the error envelope: {template!r}")
    statuses.add(r.get("statusCode"))
for kind in ["UNAUTHORIZED", "ACCESS_DENIED", "THROTTLED", "INTEGRATION_FAILURE", "INTEGRATION_TIMEOUT", "DEFAULT_4XX", "DEFAULT_5XX"]:
    need(kind in responses, f"no gateway response {kind}")
need({"401", "403", "429", "502", "504"} <= statuses, f"gateway responses cover {sorted(s for s in statuses if s)}")
spec = yaml.safe_load(open("openapi.yaml"))
for path, ops in spec["paths"].items():
    for method, op in ops.items():
        missing = {"401", "403", "429", "502", "504"} - set(op["responses"])
        need(not missing, f"openapi.yaml {method.upper()} {path} does not list {sorted(missing)}")

# What holds every user's data outlives the stack.
for name in ["UserPool", "CoachTable"]:
    need(res[name].get("DeletionPolicy") == "Retain", f"{name} is deleted with the stack")
    need(res[name].get("UpdateReplacePolicy") == "Retain", f"{name} is deleted when replaced")

# Log retention.
need(params.get("LogRetentionDays", {}).get("Default") == 30, "no log retention parameter of 30 days by default")
groups = {
    v["Properties"]["LogGroupName"]["Fn::Sub"]: v["Properties"]
    for v in res.values()
    if v["Type"] == "AWS::Logs::LogGroup"
}
for fn in functions:
    g = groups.get(f"/aws/lambda/${{{fn}}}")
    need(g is not None, f"{fn} has no log group of its own")
    need(g is None or g.get("RetentionInDays") == {"Ref": "LogRetentionDays"}, f"{fn}'s logs have no retention")

# API Gateway's access log: one line a request, attributable (IP and the pool subject), kept
# as long as the functions' logs.
stage = next(v for v in res.values() if v["Type"] == "AWS::ApiGateway::Stage")
access = stage["Properties"].get("AccessLogSetting", {})
need(access.get("DestinationArn") == {"Fn::GetAtt": ["ApiAccessLogGroup", "Arn"]}, "no API access log")
fmt = access.get("Format", "")
need(all(f in fmt for f in ["$context.identity.sourceIp", "$context.authorizer.claims.sub", "$context.status"]),
     "the access log does not name the caller and the status")
need(json.loads(fmt.replace('"$context', '"x').replace("$context", "x")) is not None if fmt else False,
     "the access log format is not JSON")
need(groups.get("/aws/apigateway/${AWS::StackName}-access", {}).get("RetentionInDays") == {"Ref": "LogRetentionDays"},
     "the access log has no retention")
need(any(v["Type"] == "AWS::ApiGateway::Account" for v in res.values()), "no CloudWatch role for API Gateway's logs")

# Abuse at scale: per-caller and per-IP rate rules in a WAF on the stage, the API lanes'
# concurrency reserved and the coach's capped, the long routes throttled on their own.
acl = next((v["Properties"] for v in res.values() if v["Type"] == "AWS::WAFv2::WebACL"), {})
keys = [r["Statement"]["RateBasedStatement"] for r in acl.get("Rules", []) if "RateBasedStatement" in r.get("Statement", {})]
need(any(k.get("AggregateKeyType") == "IP" for k in keys), "no per-IP rate rule")
need(any(h.get("Header", {}).get("Name", "").lower() == "authorization"
         for k in keys for h in k.get("CustomKeys", [])), "no per-caller (Authorization) rate rule")
need(all(r["Action"]["Block"]["CustomResponse"]["ResponseCode"] == 429 for r in acl.get("Rules", [])),
     "a rate rule does not answer 429")
assoc = [v["Properties"] for v in res.values() if v["Type"] == "AWS::WAFv2::WebACLAssociation"]
need(len(assoc) == 1 and "/stages/" in json.dumps(assoc[0]["ResourceArn"]), "the WAF is not on the API's stage")
for fn in ["FastFunction", "FunctionalFunction", "SlowFunction"]:
    need("ReservedConcurrentExecutions" in functions[fn]["Properties"], f"{fn} has no reserved concurrency")
settings = {(m["ResourcePath"], m["HttpMethod"]): m for m in stage["Properties"].get("MethodSettings", [])}
for path in ["/~1v1~1import~1strong", "/~1v1~1stream"]:
    m = settings.get((path, "POST"), {})
    need(m.get("ThrottlingRateLimit") is not None and m.get("ThrottlingBurstLimit", 1000) < 200,
         f"POST {path} has no throttle of its own")

# Cognito: a password policy, no user enumeration, the pool not deletable by accident, and the
# admin password flow only on the smoke-test client.
pool = res["UserPool"]["Properties"]
need(pool.get("Policies", {}).get("PasswordPolicy", {}).get("MinimumLength", 0) >= 12, "no password policy of 12+ characters")
need(pool.get("DeletionProtection") == "ACTIVE", "the user pool has no deletion protection")
clients = {k: v["Properties"] for k, v in res.items() if v["Type"] == "AWS::Cognito::UserPoolClient"}
for name, c in clients.items():
    need(c.get("PreventUserExistenceErrors") == "ENABLED", f"{name} reveals whether an account exists")
admin = {n for n, c in clients.items() if "ALLOW_ADMIN_USER_PASSWORD_AUTH" in c.get("ExplicitAuthFlows", [])}
need(admin == {"SmokeTestClient"}, f"the admin password flow is on {sorted(admin)}, not only the smoke-test client")

# No key in any environment; the model lanes may read only the key's secret.
for fn, f in functions.items():
    env = f["Properties"].get("Environment", {}).get("Variables", {})
    for k, v in env.items():
        need(not k.endswith("_API_KEY"), f"{fn} has {k} in its environment")
        need("secretsmanager" not in json.dumps(v), f"{fn} resolves a secret into {k}")
    role = res[f["Properties"]["Role"]["Fn::GetAtt"][0]]
    text = json.dumps(role["Properties"].get("Policies", []))
    reads_secret = "secretsmanager:GetSecretValue" in text
    is_model_lane = any(k.endswith("_MODEL") for k in env)
    need(reads_secret == is_model_lane, f"{fn}: reads a secret {reads_secret}, model lane {is_model_lane}")
    if is_model_lane:
        need("MODEL_API_KEY_SECRET_ARN" in env, f"{fn} is not told where the key is")
        grants = re.findall(r'"secretsmanager:GetSecretValue"\], "Resource": (\{[^}]*\})', text)
        need(grants == ['{"Ref": "ModelApiKeySecretArn"}'], f"{fn} may read secrets beyond the key's: {grants}")

# Bedrock: only under the provider's condition, only ConverseStream's action, and only on the
# foundation-model ARN of a model the lane runs (never a wildcard).
lane_models = {"SlowFunction": {"SlowModel", "FunctionalModel"}, "FunctionalFunction": {"FunctionalModel"}, "WorkerFunction": {"WorkerModel"}}
bedrock_fns = set()
for fn, f in functions.items():
    role = res[f["Properties"]["Role"]["Fn::GetAtt"][0]]
    for policy in role["Properties"].get("Policies", []):
        text = json.dumps(policy)
        if "bedrock:" not in text:
            continue
        bedrock_fns.add(fn)
        need(text.startswith('{"Fn::If": ["Bedrock'), f"{fn}: a Bedrock grant outside the bedrock provider's condition")
        actions = set(re.findall(r'"(bedrock:[A-Za-z*]+)"', text))
        need(actions == {"bedrock:InvokeModelWithResponseStream"}, f"{fn}: Bedrock actions {sorted(actions)}")
        arns = re.findall(r'"Fn::Sub": "([^"]*)"', text)
        for arn in arns:
            m = re.fullmatch(r"arn:\$\{AWS::Partition\}:bedrock:\$\{AWS::Region\}::foundation-model/\$\{(\w+)\}", arn)
            need(m is not None and m.group(1) in lane_models.get(fn, set()), f"{fn}: Bedrock resource {arn}")
        need(arns and "*" not in "".join(arns), f"{fn}: Bedrock resources {arns}")
need(bedrock_fns == set(lane_models), f"Bedrock grants on {sorted(bedrock_fns)}, the model lanes are {sorted(lane_models)}")
need("bedrock" in params["ModelProvider"]["AllowedValues"], "the provider parameter does not accept bedrock")

# The worker cannot take the API lanes' concurrency.
worker = functions["WorkerFunction"]["Properties"]
need("ReservedConcurrentExecutions" in worker, "the worker has no reserved concurrency")
mapping = [v for v in res.values() if v["Type"] == "AWS::Lambda::EventSourceMapping"]
need(
    len(mapping) == 1 and "MaximumConcurrency" in mapping[0]["Properties"].get("ScalingConfig", {}),
    "the worker's queue has no maximum concurrency",
)

# Every model call is paid for from the lifter's allowance and the stage's ceiling, in every
# function; an alarm watches every model lane's tokens against the ceiling.
for var, param in [("COACH_DAILY_TOKENS", "CoachDailyTokens"), ("STAGE_DAILY_TOKENS", "StageDailyTokens")]:
    need(param in params, f"no {param} parameter")
    for fn, f in functions.items():
        env = f["Properties"].get("Environment", {}).get("Variables", {})
        need(env.get(var) == {"Ref": param}, f"{fn}: {var} is not the {param} parameter")
spend = res.get("TokenSpendAlarm", {})
spend_text = json.dumps(spend)
need(spend.get("Condition") == "HasStageCeiling", "no token spend alarm under the stage ceiling's condition")
for lane in ["slow", "functional", "worker"]:
    for metric in ["InputTokens", "OutputTokens"]:
        need(
            any(
                m.get("MetricStat", {}).get("Metric", {}).get("MetricName") == metric
                and {"Name": "lane", "Value": lane} in m["MetricStat"]["Metric"].get("Dimensions", [])
                for m in spend.get("Properties", {}).get("Metrics", [])
            ),
            f"the token spend alarm does not watch {lane} {metric}",
        )
need("StageDailyTokens" in spend_text, "the token spend alarm is not relative to StageDailyTokens")

# The stage's own throttle is a parameter (docs/scale.md: 100 rps holds about 130,000 lifters).
stage_text = json.dumps([v for v in res.values() if v["Type"] == "AWS::ApiGateway::Stage"])
need('"ThrottlingRateLimit": {"Ref": "StageRateLimit"}' in stage_text, "the stage's rate limit is not the StageRateLimit parameter")
need('"ThrottlingBurstLimit": {"Ref": "StageBurstLimit"}' in stage_text, "the stage's burst limit is not the StageBurstLimit parameter")

if problems:
    print("template check: FAILED")
    for p in problems:
        print(" -", p)
    sys.exit(1)
print(
    f"template check: stream timeout {slow_timeout} s, {len(responses)} gateway responses in the envelope, "
    f"{len(functions)} log groups with retention, no key in any environment, Bedrock on the lanes' models only, worker capped, "
    f"token spend alarmed"
)
