//! `GET /v1/exercises?q=&equipment=&muscle=&pattern=&limit=&cursor=`: the exercise picker
//! (`app::exercises`), a page at a time.

use super::*;
use crate::app::exercises::ExerciseQuery;

/// The cursor of a picker page stands for the offset of its first item.
const OFFSET: &str = "EXERCISES#";

impl FunctionalLane {
    pub(super) async fn exercises(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        let params = req.query_string_parameters();
        let query = ExerciseQuery::parse(
            params.first("q"),
            params.first("equipment"),
            params.first("muscle"),
            params.first("pattern"),
        )?;
        let (limit, cursor) = page_params(req, |c| offset_of(c).is_some())?;
        let from = cursor.as_deref().and_then(offset_of).unwrap_or(0);
        let all = self.app.exercises(&ctx, &query).await?;
        let end = (from + limit as usize).min(all.len());
        let page = all.get(from..end).unwrap_or_default();
        let next = (end < all.len()).then(|| encode_cursor(&format!("{OFFSET}{end}")));
        let body = json!({ "items": page, "total": all.len(), "next_cursor": next });
        Ok(api::json_response(200, &body.to_string()))
    }
}

fn offset_of(cursor: &str) -> Option<usize> {
    cursor.strip_prefix(OFFSET)?.parse().ok()
}

/// The body of a merge: the catalog exercise the own one is.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct MergeBody {
    into: String,
}

impl FunctionalLane {
    /// `POST /v1/exercises/{id}/merge {"into": catalog_id}`.
    pub(super) async fn merge_exercise(
        &self,
        req: &Request,
        id: &str,
    ) -> Result<Response<Body>, ApiError> {
        let message = api::extract_payload(req)?;
        let (ctx, text) = bind(req, self.auth, &message)?;
        let MergeBody { into } = read(&json_object(text, false)?)?;
        let into = checked_id(into.trim(), "into")?;
        Ok(json_body(
            200,
            &self.app.merge_exercise(&ctx, id, into).await?,
        ))
    }
}

impl FunctionalLane {
    /// `POST /v1/exercises`: 201 with a new own exercise, 200 when it defined a stored one.
    pub(super) async fn define_exercise(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let message = api::extract_payload(req)?;
        let (ctx, text) = bind(req, self.auth, &message)?;
        let new: crate::app::exercises::NewExercise = read(&json_object(text, false)?)?;
        let defined = self.app.define_exercise(&ctx, &new).await?;
        Ok(json_body(if defined.created { 201 } else { 200 }, &defined))
    }
}
