//! `POST /v1/functional`: the smart buttons (swap, autofill, suggest weight) and the workout
//! monitor (`app::buttons`), in the envelope `{success, action, data, intent}`.

use super::*;
use crate::api::ErrorCode;
use crate::app::buttons::{Button, ButtonAnswer};

fn envelope(answer: &ButtonAnswer, intent: Intent) -> Response<Body> {
    api::json_response(200, &answer.to_envelope(intent).to_string())
}

impl FunctionalLane {
    /// A smart button or monitor event, whatever the route it came on (`/v1/functional`, or
    /// `/v1/stream` answering in-process).
    pub(crate) async fn functional(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        // Every error on this route carries the envelope, also those about the body or identity.
        // The body is the button object itself, or `{"message": ...}` holding it as text.
        let message = api::extract_payload(req).map_err(|e| envelope_error(e, None))?;
        let (ctx, text) = bind(req, self.auth, &message).map_err(|e| envelope_error(e, None))?;
        let route = router::route(text).map_err(|e| {
            envelope_error(ApiError::new(ErrorCode::UnknownIntent, e.to_string()), None)
        })?;
        crate::telemetry::record_route(&route);
        if route.intent == Some(Intent::MonitorSkip) {
            // Not an event the monitor analyses: NULL, and no store access at all (but a
            // malformed event is still refused).
            if let Err(e) = Button::parse(Intent::MonitorState, text) {
                return Err(envelope_error(e, Some(Intent::MonitorState)));
            }
            crate::telemetry::record(|log| log.outcome = "no_change");
            return Ok(envelope(&ButtonAnswer::Null, Intent::MonitorState));
        }
        let (Lane::Functional, Some(intent)) = (route.lane, route.intent) else {
            let mut e = ApiError::new(
                ErrorCode::NotAFunctionalRequest,
                format!(
                    "this endpoint takes a JSON object with an intent ({}) or a monitor event_type; send this message to the {} lane",
                    router::FUNCTIONAL_INTENTS.map(Intent::as_str).join(", "),
                    route.lane.as_str()
                ),
            );
            e.error.lane = Some(route.lane.as_str());
            return Err(envelope_error(e, None));
        };
        let answer = match Button::parse(intent, text) {
            Ok(button) => self.app.press(&ctx, &button).await,
            Err(e) => Err(e),
        };
        match answer {
            Ok(a) => Ok(envelope(&a, intent)),
            Err(e) => Err(envelope_error(e, Some(intent))),
        }
    }
}
