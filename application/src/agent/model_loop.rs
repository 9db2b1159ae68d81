//! The agent loop: stream the model's answer to the lifter; when it calls tools, say so
//! (`status`, then `tool_start`/`tool_end` pairs), run the calls (reads together, writes one
//! after another: `tools::run_groups`), hand the results back and let it continue. At most
//! `MAX_TOOL_TURNS` model turns with tools, then one closing turn that may call none. A failing tool is a structured error for the model, not the end of the
//! answer; a failing model is an `error` event. `done` always ends the stream.
//!
//! Every answer passes the critic (`critic`): a high-risk turn is buffered, revised once and
//! scrubbed if need be; any other turn streams live, each sentence's numbers held from its
//! first digit until it ends and shown with the unbacked weights left out (`holdback`), and
//! gets a correction after it when it broke another rule.

use std::time::Instant;

use serde_json::{Value, json};

use super::critic::{self, Facts};
use super::holdback::HoldBack;
use super::markup::{self, Markup};
use super::refs::{Refs, strip};
use super::{Emitter, StreamEvent};
use super::{instruction, tools};
use crate::app::meter::{Meter, Refusal};
use crate::llm::{
    ErrorKind, Event, Finish, Model, ModelError, Part, Request, Role, ToolResult, Turn, Usage,
};
use crate::router::Intent;

/// Model turns that may call tools before the closing turn.
pub(crate) const MAX_TOOL_TURNS: usize = 12;
/// Calls one model turn may have run; the rest are answered with an error, not run.
pub(crate) const MAX_CALLS_PER_TURN: usize = 8;
/// Tool results an answer may hand the model, in bytes (each is at most
/// `tools::MAX_RESULT_BYTES`); past it a call is answered with an error, not run.
pub(crate) const MAX_RESULT_BYTES_PER_ANSWER: usize = 60_000;

/// What the lifter reads after an answer cut at the model's output cap.
pub(crate) const CUT_AT_CAP_NOTE: &str =
    "\n\n(My answer hit its length limit and was cut here; ask me to go on.)";

const CLOSING_NOTE: &str = "You have used all your tool calls for this message. Answer now \
with what the tool results above show, and say what you could not check.";

/// What one run produced, for the `done` event and the log.
#[derive(Debug, Default)]
pub struct Outcome {
    pub usage: Usage,
    pub model_turns: usize,
    pub tool_calls: usize,
    /// Write tools that succeeded (the critic checks claims of change against these).
    pub writes: Vec<String>,
    pub proposals: usize,
    /// What the lifter was shown, corrections included (stored as the conversation turn).
    pub answer: String,
    /// Rules the answer broke before it was revised or corrected.
    pub violations: usize,
    /// The proposals stored during the answer, as shown.
    pub proposed: Vec<crate::store::conversation::Proposed>,
    /// A retried request answered from the stored exchange.
    pub replayed: bool,
    pub error: Option<&'static str>,
    /// A traced turn (`Emitter::traced`): the per-request context the model was given.
    pub traced_context: Option<String>,
    /// The weights the hold-back left out (as the model wrote them: the lifter never read
    /// them), and those the critic flagged after a streamed answer (read, then corrected): what
    /// the evaluation judges the checker by.
    pub masked: Vec<String>,
    pub flagged: Vec<String>,
    /// The figures shown from refs (`refs`): the data's by construction.
    pub cited: Vec<String>,
}

/// What the agent is given besides the lifter's message.
pub struct Briefing {
    /// Earlier turns of the conversation, oldest first, within the history budget.
    pub history: Vec<Turn>,
    /// The per-request context (profile, goals, memories, workout brief, folded history).
    pub context: String,
}

/// The model an answer calls, and who pays for each call: every call is reserved against the
/// lifter's allowance before it is made, and settled after (`app::meter`).
#[derive(Clone, Copy)]
pub struct Caller<'a> {
    pub model: &'a Model,
    pub meter: &'a Meter,
    pub user: &'a str,
}

/// Why a model turn has no answer.
enum Unanswered {
    Model(ModelError),
    /// The call was not made: the allowance is spent, or could not be counted.
    Unpaid(Refusal),
}

/// Answers `text`: the model's turns, the tools they call, then the critic's review. See the
/// module's account.
pub async fn run(
    caller: Caller<'_>,
    env: &tools::Env<'_>,
    text: &str,
    intent: Option<Intent>,
    briefing: Briefing,
    emit: &Emitter,
    deadline: tokio::time::Instant,
) -> Outcome {
    let mut a = Answering::new(caller, env, text, intent, briefing, emit, deadline);
    loop {
        let closing = a.out.model_turns == MAX_TOOL_TURNS || a.malformed > 1;
        let turn = match a.next_turn(closing).await {
            Next::Turn(turn) => turn,
            Next::Again => continue,
            Next::Stop => return a.out,
        };
        let calls: Vec<_> = turn.calls().cloned().collect();
        a.req.turns.push(turn);
        if calls.is_empty() || closing {
            return a.finish().await;
        }
        if !a.call_tools(&calls).await {
            return a.out;
        }
    }
}

/// One answer in progress: the conversation sent to the model, what backs the numbers, what
/// the lifter was shown, and what the answer has cost and done.
struct Answering<'a, 'e> {
    caller: Caller<'a>,
    env: &'a tools::Env<'e>,
    emit: &'a Emitter,
    deadline: tokio::time::Instant,
    req: Request,
    /// What backs a figure: the briefing, the lifter's words, the tool results read.
    facts: Facts,
    /// The weights of the context and of tool results the model may cite by ref ([[w4]])
    /// instead of writing them.
    refs: Refs,
    /// A high-risk turn: buffered, revised and scrubbed rather than streamed.
    buffered: bool,
    /// What the lifter was shown so far.
    said: String,
    out: Outcome,
    /// Calls whose arguments were not JSON: the model is told once; after a second, it answers.
    malformed: usize,
    /// Gemini's failed call is tried once more without thinking.
    retried_call: bool,
    /// A call written as text that cannot run: the model is told once.
    told_written: bool,
    /// Tool-result bytes handed to the model so far.
    result_bytes: usize,
}

/// What a model turn came to.
enum Next {
    /// The turn for the conversation (calls written as text that can run added to it).
    Turn(Turn),
    /// The model was told something (a call written as text ran nothing): ask again.
    Again,
    /// The client went away, or the model failed (said to the lifter): the answer ends.
    Stop,
}

impl<'a, 'e> Answering<'a, 'e> {
    fn new(
        caller: Caller<'a>,
        env: &'a tools::Env<'e>,
        text: &str,
        intent: Option<Intent>,
        briefing: Briefing,
        emit: &'a Emitter,
        deadline: tokio::time::Instant,
    ) -> Self {
        let out = Outcome {
            traced_context: emit.tracing().then(|| briefing.context.clone()),
            ..Outcome::default()
        };
        let mut refs = Refs::new(env.unit);
        let cited_context =
            super::briefing::Loaded::map_data(&briefing.context, |l| refs.annotate_text(l));
        let mut turns = briefing.history;
        turns.push(Turn::user(instruction::with_context(
            env.ctx,
            &cited_context,
            text,
        )));
        let req = Request {
            system: instruction::system(env.ctx, intent),
            turns,
            tools: tools::specs_for(env.ctx.workout_mode, intent),
            no_calls: false,
            no_thinking: false,
            json_output: false,
            cache_key: Some(crate::llm::cache_key(&env.ctx.user_id)),
        };
        let mut facts = Facts::in_unit(env.unit);
        facts.set_today(env.ctx.today);
        facts.add_said(text);
        facts.add_text(&super::briefing::Loaded::data_part(&briefing.context));
        Answering {
            caller,
            env,
            emit,
            deadline,
            req,
            facts,
            refs,
            buffered: critic::is_high_risk(text),
            said: String::new(),
            out,
            malformed: 0,
            retried_call: false,
            told_written: false,
            result_bytes: 0,
        }
    }

    /// Asks the model for its next turn and streams its text (a `closing` turn may call no
    /// tool). Every sentence's numbers are held until checked against what backs them so far:
    /// an invented figure is left out before the lifter reads it, not corrected after (Qwen
    /// 1.5B's "currently at an estimated 90 kg", after a tool, was shown and then corrected).
    async fn next_turn(&mut self, closing: bool) -> Next {
        if closing {
            self.req.no_calls = true;
            self.req.turns.push(Turn::user(CLOSING_NOTE));
        }
        self.out.model_turns += 1;
        let live = Live {
            on: !self.buffered,
            hold: Some(&self.facts),
            refs: &self.refs,
        };
        let (caller, emit, deadline) = (self.caller, self.emit, self.deadline);
        let mut attempt =
            model_turn(caller, &self.req, emit, deadline, &mut self.out.usage, live).await;
        if let Err(Unanswered::Model(e)) = &attempt
            && e.kind == ErrorKind::MalformedCall
            && !self.retried_call
        {
            tracing::warn!("the model wrote a malformed call; once more without thinking");
            self.retried_call = true;
            self.req.no_thinking = true;
            self.out.model_turns += 1;
            attempt =
                model_turn(caller, &self.req, emit, deadline, &mut self.out.usage, live).await;
            self.req.no_thinking = false;
        }
        let t = match attempt {
            Ok(Some(t)) => t,
            // The client went away: stop here, the model call is already closed.
            Ok(None) => return Next::Stop,
            Err(Unanswered::Unpaid(refused)) => {
                self.out.error = Some(unpaid(emit, refused).await);
                return Next::Stop;
            }
            Err(Unanswered::Model(e)) => {
                tracing::warn!(code = e.code(), "model call failed: {e}");
                self.out.error = Some(e.code());
                emit.send(StreamEvent::error(e.code(), lifter_message(&e)))
                    .await;
                return Next::Stop;
            }
        };
        self.said.push_str(&t.shown);
        self.out.masked.extend(t.left_out.iter().map(|m| strip(m)));
        // Calls a model wrote as text run when they name an offered tool with valid arguments;
        // otherwise the model is told once that nothing ran.
        let (calls, unusable) = markup::calls_in(&t.written_calls, &self.req.tools);
        let mut turn = t.turn;
        if !unusable.is_empty() {
            // How many, not what: the text may carry the lifter's data.
            tracing::warn!(
                written = unusable.len(),
                "calls written as text could not run"
            );
        }
        if !closing && calls.is_empty() && !unusable.is_empty() && !self.told_written {
            self.told_written = true;
            if turn.parts.is_empty() {
                // The model reads back what it wrote (no turn may be empty).
                turn.parts.push(Part::text(unusable.join("\n")));
            }
            self.req.turns.push(turn);
            self.req
                .turns
                .push(Turn::user(written_call_note(&unusable)));
            return Next::Again;
        }
        if !closing {
            turn.parts.extend(calls.into_iter().map(Part::Call));
        }
        Next::Turn(turn)
    }

    /// The answer is complete: reviewed by the critic, or said as a failure when there is
    /// nothing in it for the lifter.
    async fn finish(mut self) -> Outcome {
        let out = &mut self.out;
        if self.said.trim().is_empty() && out.writes.is_empty() && out.proposals == 0 {
            // Nothing for the lifter (a small model's calls written as text that cannot run,
            // twice, left Qwen 1.5B's answer empty): said as a failure, not silence.
            tracing::warn!("the model's answer was empty");
            out.error = Some(EMPTY_ANSWER);
            self.emit.send(StreamEvent::error(
                EMPTY_ANSWER,
                "The coach could not put an answer together; try again, or say which lift and what you want to know.",
            ))
            .await;
            return self.out;
        }
        let checked = review(
            self.caller,
            &mut self.req,
            self.said,
            (&self.facts, &self.refs),
            out,
            self.buffered,
            self.emit,
            self.deadline,
        )
        .await;
        out.cited = super::refs::cited_in(&checked);
        out.answer = strip(&checked);
        self.out
    }

    /// Says what the calls do, runs them and hands their results to the model; false when the
    /// client went away.
    async fn call_tools(&mut self, calls: &[crate::llm::ToolCall]) -> bool {
        let emit = self.emit;
        self.out.tool_calls += calls.len();
        self.malformed += calls.iter().filter(|c| c.malformed.is_some()).count();
        let status = StreamEvent::Status {
            text: status_text(calls),
        };
        if !emit.send(status).await {
            return false;
        }
        for c in calls {
            emit.send(StreamEvent::ToolStart {
                tool: c.name.clone(),
                call_id: c.id.clone(),
            })
            .await;
        }
        let results = self.run_calls(calls).await;
        let parts = self.hand_back(calls, results).await;
        if emit.client_gone() {
            return false;
        }
        self.req.turns.push(Turn {
            role: Role::User,
            parts,
        });
        true
    }

    /// Runs the calls: reads in one turn together, writes one after another in the model's
    /// order; a name not offered runs nothing, nor a call past the turn's or the answer's
    /// limits.
    async fn run_calls(&self, calls: &[crate::llm::ToolCall]) -> Vec<ToolRun> {
        let (env, offered) = (self.env, &self.req.tools);
        let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
        let mut results = Vec::with_capacity(calls.len());
        let over_budget = self.result_bytes >= MAX_RESULT_BYTES_PER_ANSWER;
        // A ref in an argument ("save_memory: bench e1RM [[w4]]") is stored as its figure.
        let rendered: Vec<Value> = calls
            .iter()
            .map(|c| self.refs.render_args(&c.args))
            .collect();
        let rendered = &rendered;
        for group in tools::run_groups(&names) {
            results.extend(
                futures_util::future::join_all(calls[group.clone()].iter().enumerate().map(
                    |(k, c)| async move {
                        let started = Instant::now();
                        let r = if group.start + k >= MAX_CALLS_PER_TURN {
                            Err(tools::ToolError::new(
                                "TOO_MANY_CALLS",
                                format!("at most {MAX_CALLS_PER_TURN} calls run in one turn; this one did not run. Ask again for what you still need"),
                            ))
                        } else if over_budget {
                            Err(tools::ToolError::new(
                                "RESULT_BUDGET_SPENT",
                                "this answer has read all the tool data it may; answer with what you have",
                            ))
                        } else {
                            match &c.malformed {
                                Some(raw) => Err(malformed_arguments(&c.name, raw)),
                                None => {
                                    let args = &rendered[group.start + k];
                                    tools::run(env, offered, &c.name, args).await
                                }
                            }
                        };
                        (r, started.elapsed())
                    },
                ))
                .await,
            );
        }
        results
    }

    /// Each result as the model reads it (its weights citable), with what it did counted and
    /// shown: `tool_end` per call, then the proposals it stored as artifacts.
    async fn hand_back(
        &mut self,
        calls: &[crate::llm::ToolCall],
        results: Vec<ToolRun>,
    ) -> Vec<Part> {
        let emit = self.emit;
        let mut parts = Vec::with_capacity(calls.len());
        let mut artifacts = Vec::new();
        let mut shown = Vec::new();
        for (c, (r, took)) in calls.iter().zip(results) {
            let ok = r.is_ok();
            let content = match r {
                Ok(done) => {
                    match done.effect {
                        tools::Effect::Proposed(view) => {
                            self.out.proposals += 1;
                            artifacts.push(view);
                        }
                        tools::Effect::Shown(view) => shown.push(view),
                        tools::Effect::Wrote => self.out.writes.push(c.name.clone()),
                        tools::Effect::None => {}
                    }
                    self.facts.add_json(&done.value);
                    self.refs.annotate(&done.value)
                }
                Err(e) => e.to_json(),
            };
            self.result_bytes += content.to_string().len();
            let traced = emit.tracing();
            emit.send(StreamEvent::ToolEnd {
                tool: c.name.clone(),
                call_id: c.id.clone(),
                elapsed_ms: took.as_millis() as u64,
                ok,
                args: traced.then(|| c.args.clone()),
                result: traced.then(|| content.clone()),
            })
            .await;
            parts.push(Part::Result(ToolResult::for_call(c, content)));
        }
        // Artifacts after the tool_end of the call that stored them, with their stored ids.
        self.out
            .proposed
            .extend(super::briefing::proposed(&artifacts));
        for view in artifacts.into_iter().chain(shown) {
            emit.send(StreamEvent::Artifact(StreamEvent::fields(view)))
                .await;
        }
        parts
    }
}

/// A call's result and how long it took.
type ToolRun = (Result<tools::Output, tools::ToolError>, std::time::Duration);

/// The critic's pass over the whole answer. Streamed: a correction follows when it broke a rule.
/// Buffered: one revision by the model with the findings, then the unsafe sentences replaced;
/// the result is sent as one message. Returns what the lifter was shown.
#[allow(clippy::too_many_arguments)]
async fn review(
    caller: Caller<'_>,
    req: &mut Request,
    said: String,
    (facts, refs): (&Facts, &Refs),
    out: &mut Outcome,
    buffered: bool,
    emit: &Emitter,
    deadline: tokio::time::Instant,
) -> String {
    let wrote = !out.writes.is_empty();
    let found = critic::check(&said, facts, wrote);
    out.violations = found.len();
    if found.is_empty() {
        if buffered {
            emit.send(StreamEvent::message(strip(&said))).await;
        }
        return said;
    }
    let kinds: Vec<&str> = found.iter().map(critic::Violation::kind).collect();
    tracing::warn!(violations = ?kinds, "critic flagged the answer");
    out.flagged = found
        .iter()
        .filter_map(|v| match v {
            critic::Violation::UnsupportedNumber(n, _) => Some(strip(n)),
            _ => None,
        })
        .collect();
    if !buffered {
        let fix = strip(&critic::correction(&found));
        emit.send(StreamEvent::message(fix.clone())).await;
        return said + &fix;
    }
    let rules: Vec<String> = found.iter().map(|v| format!("- {}", v.rule())).collect();
    req.no_calls = true;
    req.turns.push(Turn::user(format!(
        "Your answer broke these rules:\n{}\nWrite the whole answer again without breaking them.",
        rules.join("\n")
    )));
    let quiet = Live {
        on: false,
        hold: None,
        refs,
    };
    out.model_turns += 1;
    let revised = match model_turn(caller, req, emit, deadline, &mut out.usage, quiet).await {
        Ok(Some(t)) => t.shown,
        Ok(None) => String::new(),
        Err(Unanswered::Model(e)) => {
            // The draft is scrubbed instead; the failure is the operator's to see.
            tracing::warn!(code = e.code(), "the revision call failed: {e}");
            String::new()
        }
        Err(Unanswered::Unpaid(refused)) => {
            tracing::warn!(?refused, "the revision call was not made");
            String::new()
        }
    };
    let text = if !revised.trim().is_empty() && critic::check(&revised, facts, wrote).is_empty() {
        revised
    } else {
        let base = if revised.trim().is_empty() {
            &said
        } else {
            &revised
        };
        critic::scrub(base, facts, wrote)
    };
    emit.send(StreamEvent::message(strip(&text))).await;
    text
}

/// How a turn's text reaches the lifter: streamed (`on`) or not, and with its numbers held
/// until checked against `hold`; its cited figures (`[[w4]]`) rendered from `refs`.
#[derive(Clone, Copy)]
struct Live<'f> {
    on: bool,
    hold: Option<&'f Facts>,
    refs: &'f Refs,
}

/// One model turn as streamed.
struct Streamed {
    /// The turn for the conversation: reasoning and calls written as text taken out of its
    /// text.
    turn: Turn,
    /// What the lifter was shown (numbers held back replaced).
    shown: String,
    /// Calls the model wrote as text (`markup`).
    written_calls: Vec<String>,
    /// The weights the hold-back left out.
    left_out: Vec<String>,
}

/// Streams one model turn's text to the lifter (when live) and returns it (`Streamed`); `None`
/// when the client disconnected (dropping the stream closes the model call). The call is paid
/// for first (refused: not made); what it cost is settled and added to `usage` however it ended.
async fn model_turn(
    caller: Caller<'_>,
    req: &Request,
    emit: &Emitter,
    deadline: tokio::time::Instant,
    usage: &mut Usage,
    live: Live<'_>,
) -> Result<Option<Streamed>, Unanswered> {
    let reservation = caller
        .meter
        .reserve(caller.user, caller.model, req)
        .await
        .map_err(Unanswered::Unpaid)?;
    let mut stream = match caller.model.stream(req, deadline).await {
        Ok(stream) => stream,
        Err(e) => {
            // Refused or unreachable: nothing spent. Cut off once the server had the request
            // (a timeout, a broken or unreadable answer): its input is counted.
            let spent = match e.kind {
                ErrorKind::Connect
                | ErrorKind::RateLimited
                | ErrorKind::QuotaExhausted
                | ErrorKind::Rejected => Usage::default(),
                _ => caller.model.input_estimate(req),
            };
            caller.meter.settle(reservation, spent).await;
            return Err(Unanswered::Model(e));
        }
    };
    let turn = stream_turn(&mut stream, emit, live).await;
    let spent = stream.usage();
    caller.meter.settle(reservation, spent).await;
    *usage += spent;
    turn.map_err(Unanswered::Model)
}

/// Tells the lifter why the answer stops before a model call it could not pay for; the code.
async fn unpaid(emit: &Emitter, refused: Refusal) -> &'static str {
    let now = chrono::Utc::now();
    match refused {
        Refusal::LifterSpent => {
            emit.send(super::budget::exceeded(now, false)).await;
            "QUOTA_EXCEEDED"
        }
        Refusal::StageSpent => {
            emit.send(super::budget::exceeded(now, true)).await;
            "QUOTA_EXCEEDED"
        }
        Refusal::Store(e) => {
            tracing::error!(error = %e, "could not count the coach's tokens");
            let err = crate::app::error::AppError::store_unavailable();
            emit.send(StreamEvent::error(err.code.as_str(), err.message))
                .await;
            err.code.as_str()
        }
    }
}

async fn stream_turn(
    stream: &mut crate::llm::ModelStream,
    emit: &Emitter,
    live: Live<'_>,
) -> Result<Option<Streamed>, ModelError> {
    let mut t = TurnText {
        text: String::new(),
        markup: Markup::default(),
        hold: live
            .hold
            .filter(|_| live.on)
            .map(|facts| HoldBack::new(facts, live.refs)),
        on: live.on,
    };
    loop {
        if emit.client_gone() {
            return Ok(None);
        }
        // Poll the model and the client together, so a disconnect stops a silent model too.
        let next = tokio::select! {
            ev = stream.next() => ev,
            () = emit.gone() => return Ok(None),
        };
        match next {
            None => {
                let rest = t.markup.finish();
                if !t.show(emit, &rest).await {
                    return Ok(None);
                }
                let rest = t.release();
                if !send(emit, &rest).await {
                    return Ok(None);
                }
                return Ok(Some(t.finished(stream, live.refs)));
            }
            Some(Err(e)) => return Err(e),
            Some(Ok(Event::TextDelta(delta))) => {
                let clean = t.markup.push(&delta);
                if !t.show(emit, &clean).await {
                    return Ok(None);
                }
                // A model looping on a paragraph is stopped (dropping the stream closes the
                // call) rather than read to its token limit.
                if clean.contains(['.', '!', '?', '\n']) && critic::repeats_itself(&t.text) {
                    tracing::warn!("the model's answer repeats itself; cut");
                    let rest = t.release();
                    if live.on {
                        send(emit, &format!("{rest}{}", critic::CUT_NOTE)).await;
                    }
                    return Ok(Some(t.finished(stream, live.refs)));
                }
            }
            Some(Ok(Event::Done(Finish::MaxTokens))) => {
                // Said at the end of the text, whether the text is live or buffered.
                let rest = t.markup.finish();
                let note = format!("{rest}{CUT_AT_CAP_NOTE}");
                if !t.show(emit, &note).await {
                    return Ok(None);
                }
            }
            Some(Ok(Event::Usage(_) | Event::ToolCall(_) | Event::Done(_))) => {}
        }
    }
}

/// Sends `t` as a message (nothing when empty); false when the client is gone.
async fn send(emit: &Emitter, t: &str) -> bool {
    t.is_empty() || emit.send(StreamEvent::message(t)).await
}

/// A turn's text as it streams: the model's, less reasoning and calls written as text
/// (`markup`), shown through the hold-back when live.
struct TurnText<'h> {
    text: String,
    markup: Markup,
    hold: Option<HoldBack<'h>>,
    on: bool,
}

impl TurnText<'_> {
    /// Adds `t` to the text and, when live, shows it; false when the client is gone.
    async fn show(&mut self, emit: &Emitter, t: &str) -> bool {
        self.text.push_str(t);
        if !self.on {
            return true;
        }
        let out = match self.hold.as_mut() {
            Some(h) => h.push(t),
            None => t.to_string(),
        };
        send(emit, &out).await
    }

    /// What the hold-back still holds, released at the end of the text.
    fn release(&mut self) -> String {
        self.hold.as_mut().map(HoldBack::finish).unwrap_or_default()
    }

    fn finished(self, stream: &crate::llm::ModelStream, refs: &Refs) -> Streamed {
        let mut turn = stream.turn();
        if self.markup.removed {
            // The conversation keeps what the lifter was meant to read, not the markup.
            turn.parts.retain(|p| !matches!(p, Part::Text { .. }));
            if !self.text.is_empty() {
                turn.parts.insert(0, Part::text(&self.text));
            }
        }
        // Not streamed: its refs rendered now (streamed, the hold-back rendered them).
        let (shown, left_out) = match self.hold {
            Some(h) => (h.shown, h.left_out),
            None => refs.render(&self.text),
        };
        Streamed {
            turn,
            shown,
            written_calls: self.markup.written_calls,
            left_out,
        }
    }
}

/// What the model reads after writing a call as text that cannot run.
fn written_call_note(unusable: &[String]) -> String {
    format!(
        "Your answer wrote a tool call as text ({}); nothing ran and the lifter did not see it. Call tools through the tool interface, by a name from the list with JSON arguments, or answer in plain words.",
        unusable.join(" | ")
    )
}

/// What the model reads for a call whose arguments were not a JSON object, with what it wrote.
fn malformed_arguments(name: &str, raw: &str) -> tools::ToolError {
    let shown: String = raw.chars().take(200).collect();
    tools::ToolError::new(
        "INVALID_ARGUMENTS",
        format!(
            "the arguments of {name} were not a JSON object ({shown}); nothing ran. Call it again with a JSON object, or answer without it"
        ),
    )
}

fn status_text(calls: &[crate::llm::ToolCall]) -> String {
    let mut unique: Vec<&str> = Vec::new();
    for c in calls {
        let what = tools::tool(&c.name).map_or("your data", |t| t.shown_as);
        if !unique.contains(&what) {
            unique.push(what);
        }
    }
    let does = |d: tools::Does| {
        calls
            .iter()
            .any(|c| tools::tool(&c.name).is_some_and(|t| t.does == d))
    };
    let verb = if does(tools::Does::Proposes) {
        "Drafting"
    } else if calls.iter().any(|c| tools::is_workout_tool(&c.name)) {
        "Updating"
    } else {
        "Checking"
    };
    format!("{verb} {}…", unique.join(" and "))
}

/// What the lifter reads when the model fails (the provider's words stay in the log).
/// The `error` code of an answer with nothing in it.
const EMPTY_ANSWER: &str = "MODEL_EMPTY_ANSWER";

fn lifter_message(e: &ModelError) -> String {
    match e.code() {
        "MODEL_RATE_LIMITED" => "The coach is busy right now; try again in a minute.",
        "MODEL_TIMEOUT" => "The coach took too long to answer; try again.",
        "MODEL_REFUSED" => "The coach could not answer that one; try rephrasing.",
        _ => "The coach is unavailable right now; your training data is safe. Try again shortly.",
    }
    .to_string()
}

/// The `done` event, last of a coach turn.
pub fn done_event(intent: Option<Intent>, started: Instant, out: &Outcome) -> StreamEvent {
    StreamEvent::Done {
        lane: "slow",
        intent: intent.map(Intent::as_str),
        latency_ms: started.elapsed().as_millis() as u64,
        usage: (out.usage.total_tokens > 0).then(|| json!(out.usage)),
        trace: out.traced_context.as_ref().map(|context| {
            json!({
                "model_turns": out.model_turns,
                "tool_calls": out.tool_calls,
                "proposals": out.proposals,
                "critic_findings": out.violations,
                "masked": out.masked,
                "flagged": out.flagged,
                "cited": out.cited,
                "context": context,
            })
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(names: &[&str]) -> Vec<crate::llm::ToolCall> {
        names
            .iter()
            .map(|n| crate::llm::ToolCall {
                id: format!("c-{n}"),
                provider_id: false,
                name: n.to_string(),
                args: json!({}),
                signature: None,
                malformed: None,
            })
            .collect()
    }

    /// What the lifter reads while tools run, from the tools' table: drafting when one proposes
    /// (retiring a memory is a proposal the lifter confirms), updating when one changes the
    /// workout, checking otherwise; each thing named once.
    #[test]
    fn the_status_line_says_what_the_tools_do() {
        assert_eq!(
            status_text(&calls(&["exercise_progress", "training_set_query"])),
            "Checking your progress…"
        );
        assert_eq!(
            status_text(&calls(&["exercise_search", "propose_routine"])),
            "Drafting the exercise catalog and a proposal…"
        );
        assert_eq!(
            status_text(&calls(&["retire_memory"])),
            "Drafting your notes…"
        );
        assert_eq!(
            status_text(&calls(&["workout_state", "log_set"])),
            "Updating your workout…"
        );
        assert_eq!(
            status_text(&calls(&["list_memories", "no_such_tool"])),
            "Checking your notes and your data…"
        );
    }
}
