//! `POST /v1/import/strong`: a Strong app export (`text/csv`) into the user's history. The
//! work is `import::strong_export`; this route reads the request and maps the errors.
//!
//! Query parameters: `tz` (IANA name; default the profile's timezone) for the export's local
//! dates, and `unit` (`kg` or `lb`) for weights in a file without a unit column (default: what
//! the weights look like when they are decisive, else the profile's unit; the answer says which
//! and why; when neither tells, 422 `IMPORT_UNIT_UNKNOWN` asks for it and nothing is written).

use super::*;
use crate::api::ErrorCode;
use crate::domain::units::Unit;
use crate::import::strong::Refused;
use crate::import::{self, ImportError, MAX_IMPORT_BYTES};

impl FunctionalLane {
    pub(super) async fn import_strong(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        crate::telemetry::record(|log| log.intent = Some("IMPORT_STRONG"));
        let params = req.query_string_parameters();
        for (name, _) in params.iter() {
            if !matches!(name, "tz" | "unit") {
                return Err(invalid(
                    &format!("unknown query parameter '{name}' (known: tz, unit)"),
                    "query",
                )
                .into());
            }
        }
        let tz =
            match params.first("tz") {
                Some(t) => Some(t.parse::<chrono_tz::Tz>().map_err(|_| {
                    invalid("tz must be an IANA timezone such as Europe/Berlin", "tz")
                })?),
                None => None,
            };
        let unit = match params.first("unit") {
            Some(u) => Some(
                Unit::parse(&u.to_ascii_lowercase())
                    .ok_or_else(|| invalid("unit must be kg or lb", "unit"))?,
            ),
            None => None,
        };
        let text = csv_body(req)?;
        // One import of a lifter's at a time: each may run 29 s.
        let now = Utc::now();
        let until = now + chrono::Duration::seconds(IMPORT_LEASE_SECS);
        let lease = match self
            .app
            .store
            .take_lease(&ctx.user_id, "import", 1, until, now)
            .await?
        {
            Ok(lease) => lease,
            Err(free_in) => {
                let mut e = ApiError::new(
                    ErrorCode::ImportInProgress,
                    "an import of yours is still running; try again when it has finished",
                );
                e.retry_after = Some(free_in);
                return Err(e);
            }
        };
        let out = import::strong_export(
            &self.app.store,
            &self.app.queue,
            &ctx.user_id,
            text,
            tz,
            unit,
            now,
        )
        .await;
        if let Err(e) = self
            .app
            .store
            .give_back(&ctx.user_id, &lease, Utc::now())
            .await
        {
            // It expires by itself when the import's time is up.
            tracing::warn!(error = %e, "could not give the import's lease back");
        }
        let out = out.map_err(|e| match e {
            ImportError::Refused(Refused::Malformed(m)) => {
                ApiError::new(ErrorCode::ImportMalformed, m.0)
            }
            ImportError::Refused(Refused::TooLarge(m)) => {
                ApiError::new(ErrorCode::ImportTooLarge, m)
            }
            ImportError::UnitUnknown(m) => {
                ApiError::new(ErrorCode::ImportUnitUnknown, m).field("unit")
            }
            ImportError::Store(e) => ApiError::from(e),
        })?;
        let body = serde_json::to_string(&out).map_err(|_| ApiError::internal())?;
        Ok(api::json_response(200, &body))
    }
}

/// How long an import holds its lease: the function's 29 s and a margin.
const IMPORT_LEASE_SECS: i64 = 35;

/// The export as text: CSV (or plain text), at most [`MAX_IMPORT_BYTES`], UTF-8.
fn csv_body(req: &Request) -> Result<&str, ApiError> {
    let bytes: &[u8] = match req.body() {
        Body::Text(t) => t.as_bytes(),
        Body::Binary(b) => b,
        _ => &[],
    };
    if bytes.len() > MAX_IMPORT_BYTES {
        return Err(ApiError::new(
            ErrorCode::PayloadTooLarge,
            format!(
                "the export is {} bytes; the limit is {MAX_IMPORT_BYTES}",
                bytes.len()
            ),
        ));
    }
    let content_type = api::media_type(req);
    if !matches!(
        content_type.as_str(),
        "" | "text/csv" | "text/plain" | "application/csv" | "application/octet-stream"
    ) {
        return Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            format!("send the export as text/csv, not {content_type}"),
        ));
    }
    std::str::from_utf8(bytes)
        .map_err(|_| ApiError::new(ErrorCode::InvalidBody, "the export is not UTF-8 text"))
}
