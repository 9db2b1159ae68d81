//! The OpenAI adapter against llama-cpp-python's server and a real 135M model (`make
//! test-models` starts it and sets `REAL_MODEL_BASE_URL`). A model this small says anything, so
//! these tests assert our side: well-formed events that end in `Done`, usage counted, errors
//! as values, a tool turn read whatever the model puts in it.

use std::time::Duration;

use coach::llm::{
    ErrorKind, Event, Finish, Model, ModelConfig, ModelLane, Request, ToolSpec, Turn,
};
use serde_json::json;
use tokio::time::Instant;

fn model(max_tokens: u32) -> Model {
    let base = std::env::var("REAL_MODEL_BASE_URL")
        .expect("REAL_MODEL_BASE_URL: run these tests with `make test-models`");
    let cfg = ModelConfig::from_vars(ModelLane::Slow, |k| match k {
        "SLOW_MODEL" => Some("smollm2".into()),
        "MODEL_PROVIDER" => Some("openai".into()),
        "OPENAI_BASE_URL" => Some(base.clone()),
        "SLOW_MAX_OUTPUT_TOKENS" => Some(max_tokens.to_string()),
        _ => None,
    })
    .expect("valid config")
    .expect("a model");
    Model::new(cfg, coach::llm::http_client().expect("client"))
}

fn request(text: &str, tools: bool) -> Request {
    Request {
        system: "You are a strength coach. Answer in one sentence.".into(),
        turns: vec![Turn::user(text)],
        tools: if tools {
            vec![ToolSpec {
                name: "exercise_progress".into(),
                description: "Progress of one exercise.".into(),
                parameters: Some(json!({
                    "type": "object",
                    "properties": {"exercise_id": {"type": "string"}},
                    "required": ["exercise_id"],
                })),
            }]
        } else {
            Vec::new()
        },
        no_calls: false,
        no_thinking: false,
        json_output: false,
        cache_key: None,
    }
}

fn deadline() -> Instant {
    Instant::now() + Duration::from_secs(120)
}

async fn collect(m: &Model, req: &Request) -> (Vec<Event>, Option<ErrorKind>) {
    blackbox::collect_events(m, req, deadline()).await
}

fn finish(events: &[Event]) -> Option<Finish> {
    events.iter().find_map(|e| match e {
        Event::Done(f) => Some(f.clone()),
        _ => None,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamed_text_ends_done_with_usage() {
    let m = model(64);
    let req = request("How should I warm up for squats?", false);
    let mut stream = m.stream(&req, deadline()).await.expect("a stream");
    let mut events = Vec::new();
    while let Some(ev) = stream.next().await {
        events.push(ev.expect("no error"));
    }
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::TextDelta(t) if !t.is_empty())),
        "{events:?}"
    );
    assert!(
        matches!(finish(&events), Some(Finish::Stop | Finish::MaxTokens)),
        "{events:?}"
    );
    // This server sends no usage chunk (it ignores `stream_options`): the call is counted by
    // the estimate, never as free.
    assert!(
        !events.iter().any(|e| matches!(e, Event::Usage(_))),
        "{events:?}"
    );
    let usage = stream.usage();
    assert!(
        usage.input_tokens > 0 && usage.output_tokens > 0,
        "{usage:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_token_limit_finishes_by_length() {
    let (events, err) = collect(
        &model(3),
        &request("Tell me everything about deadlifts.", false),
    )
    .await;
    assert_eq!(err, None, "{events:?}");
    assert_eq!(finish(&events), Some(Finish::MaxTokens), "{events:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_declaration_gives_a_well_formed_turn() {
    // The server cannot stream with tools: the adapter asks once without streaming.
    let (events, err) = collect(&model(64), &request("How is my bench press going?", true)).await;
    match err {
        None => assert!(finish(&events).is_some(), "{events:?}"),
        // A call the model wrote that is not valid JSON is a clear error, not a panic.
        Some(kind) => assert_eq!(kind, ErrorKind::Malformed, "{events:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_beyond_the_context_is_rejected_not_retried() {
    let long = "squat ".repeat(4000);
    let (events, err) = collect(&model(16), &request(&long, false)).await;
    assert!(
        matches!(
            err,
            Some(ErrorKind::Rejected | ErrorKind::Unavailable | ErrorKind::Truncated)
        ),
        "an error value, not an answer: {err:?} {events:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_stream_mid_answer_is_clean() {
    let m = model(256);
    let mut stream = m
        .stream(&request("List ten squat cues.", false), deadline())
        .await
        .expect("a stream");
    let first = stream.next().await;
    assert!(matches!(first, Some(Ok(_))), "{first:?}");
    drop(stream);
    // The server still answers the next request.
    let (events, err) = collect(&model(8), &request("One cue?", false)).await;
    assert_eq!(err, None, "{events:?}");
}
