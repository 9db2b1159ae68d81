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
        let (limit, cursor) = page_params(req, |c| offset_of(c, OFFSET).is_some())?;
        let all = self.app.exercises(&ctx, &query).await?;
        let (page, next) = offset_page(&all, cursor.as_deref(), OFFSET, limit);
        let body = json!({ "items": page, "total": all.len(), "next_cursor": next });
        Ok(api::json_response(200, &body.to_string()))
    }
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
        let (ctx, body) = object_body(req, self.auth, false)?;
        let MergeBody { into } = read(&body)?;
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
        let (ctx, body) = object_body(req, self.auth, false)?;
        let new: crate::app::exercises::NewExercise = read(&body)?;
        let defined = self.app.define_exercise(&ctx, &new).await?;
        Ok(json_body(if defined.created { 201 } else { 200 }, &defined))
    }
}
