//! The provider-neutral conversation: the tools a model may call, the turns of a conversation
//! made of parts (text, tool calls, tool results), a request, and the events a stream yields.

use serde::Serialize;
use serde_json::Value;

use super::Usage;

/// A tool the model may call; `parameters` is a JSON Schema subset both providers accept
/// (lower-case types, no `additionalProperties`, `const` or type arrays).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Role {
    User,
    Model,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub role: Role,
    pub parts: Vec<Part>,
}

impl Turn {
    pub fn user(text: impl Into<String>) -> Turn {
        Turn {
            role: Role::User,
            parts: vec![Part::text(text)],
        }
    }

    pub fn model(text: impl Into<String>) -> Turn {
        Turn {
            role: Role::Model,
            parts: vec![Part::text(text)],
        }
    }

    /// The visible text of the turn.
    pub fn text(&self) -> String {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    pub fn calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.parts.iter().filter_map(|p| match p {
            Part::Call(c) => Some(c),
            _ => None,
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// Text; on Gemini a part may carry a thought signature that must go back with it.
    Text {
        text: String,
        signature: Option<String>,
    },
    Call(ToolCall),
    Result(ToolResult),
}

impl Part {
    pub fn text(text: impl Into<String>) -> Part {
        Part::Text {
            text: text.into(),
            signature: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// Ours to match results with: the provider's id, or one we made when it sent none.
    pub id: String,
    /// Whether `id` came from the provider (Gemini echoes it only then).
    pub provider_id: bool,
    pub name: String,
    /// Always a JSON object (`{}` when the model's were not one).
    pub args: Value,
    pub signature: Option<String>,
    /// The arguments as the model wrote them when they were not a JSON object: the call is
    /// answered with an error for the model to correct, not run and not the end of the answer.
    pub malformed: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub call_id: String,
    pub provider_id: bool,
    pub name: String,
    pub content: Value,
}

impl ToolResult {
    pub fn for_call(call: &ToolCall, content: Value) -> ToolResult {
        ToolResult {
            call_id: call.id.clone(),
            provider_id: call.provider_id,
            name: call.name.clone(),
            content,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Request {
    pub system: String,
    pub turns: Vec<Turn>,
    pub tools: Vec<ToolSpec>,
    /// The tools stay declared but none may be called (a closing or revision turn). Declared,
    /// because Bedrock refuses a history holding tool use without its `toolConfig`, and an
    /// unchanged declaration keeps the prompt prefix the same from turn to turn.
    pub no_calls: bool,
    /// No thinking this call (a retry after the model failed to write a call while thinking).
    pub no_thinking: bool,
    /// Ask for a JSON object as the answer.
    pub json_output: bool,
    /// Whose prefix this is, for a provider that routes by a cache key (OpenAI's
    /// `prompt_cache_key`): a hash, never the lifter's id.
    pub cache_key: Option<String>,
}

impl Request {
    /// The request's text in bytes: instruction, turns and tool declarations (what the model
    /// reads, less the wire format's own keys).
    pub fn text_bytes(&self) -> u64 {
        let part = |p: &Part| match p {
            Part::Text { text, .. } => text.len(),
            Part::Call(c) => c.name.len() + c.args.to_string().len(),
            Part::Result(r) => r.name.len() + r.content.to_string().len(),
        };
        let turns: usize = self.turns.iter().flat_map(|t| &t.parts).map(part).sum();
        let tools: usize = self
            .tools
            .iter()
            .map(|t| {
                t.name.len()
                    + t.description.len()
                    + t.parameters.as_ref().map_or(0, |p| p.to_string().len())
            })
            .sum();
        (self.system.len() + turns + tools) as u64
    }
}

/// A whole answer and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub turn: Turn,
    pub usage: Usage,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finish {
    Stop,
    ToolCalls,
    MaxTokens,
    Other(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    TextDelta(String),
    ToolCall(ToolCall),
    Usage(Usage),
    Done(Finish),
}
