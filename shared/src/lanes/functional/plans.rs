//! `GET /v1/routines/active`, `GET /v1/routines`, `GET /v1/templates`, `GET /v1/templates/{id}`,
//! and the lifter's edits `PUT`/`DELETE /v1/templates/{id}`, `PUT`/`DELETE /v1/routines/{id}`
//! and `POST /v1/routines/{id}/activate` (`app::plans`); and the progress
//! reads `GET /v1/progress/exercises/{id}` and `GET /v1/progress/muscles` (`app::progress`).

use super::*;

impl FunctionalLane {
    pub(super) async fn active_routine(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        Ok(json_body(200, &self.app.active_routine(&ctx).await?))
    }

    pub(super) async fn templates(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        Ok(json_body(200, &self.app.templates(&ctx).await?))
    }

    pub(super) async fn template(
        &self,
        req: &Request,
        id: &str,
    ) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        Ok(json_body(200, &self.app.template(&ctx, id).await?))
    }

    /// `PUT /v1/templates/{id}`: 201 when it created the template, 200 when it replaced one.
    pub(super) async fn put_template(
        &self,
        req: &Request,
        id: &str,
    ) -> Result<Response<Body>, ApiError> {
        let (ctx, body) = object_body(req, self.auth, false)?;
        let written = self.app.put_template(&ctx, id, &body).await?;
        Ok(json_body(if written.created { 201 } else { 200 }, &written))
    }

    /// `PUT /v1/routines/{id}`: 201 when it created the routine, 200 when it replaced one.
    pub(super) async fn put_routine(
        &self,
        req: &Request,
        id: &str,
    ) -> Result<Response<Body>, ApiError> {
        let (ctx, body) = object_body(req, self.auth, false)?;
        let written = self.app.put_routine(&ctx, id, &body).await?;
        Ok(json_body(if written.created { 201 } else { 200 }, &written))
    }

    /// `POST /v1/workouts/{id}/template`: 201 when it created the template, 200 when it
    /// rewrote the one saved from this workout before.
    pub(super) async fn save_as_template(
        &self,
        req: &Request,
        id: &str,
    ) -> Result<Response<Body>, ApiError> {
        let (ctx, body) = object_body(req, self.auth, true)?;
        let written = self.app.save_as_template(&ctx, id, &body).await?;
        Ok(json_body(if written.created { 201 } else { 200 }, &written))
    }

    pub(super) async fn routines(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        Ok(json_body(200, &self.app.routines(&ctx).await?))
    }

    pub(super) async fn activate_routine(
        &self,
        req: &Request,
        id: &str,
    ) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        Ok(json_body(200, &self.app.activate_routine(&ctx, id).await?))
    }

    pub(super) async fn delete_routine(
        &self,
        req: &Request,
        id: &str,
    ) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        Ok(json_body(200, &self.app.delete_routine(&ctx, id).await?))
    }

    pub(super) async fn delete_template(
        &self,
        req: &Request,
        id: &str,
    ) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        Ok(json_body(200, &self.app.delete_template(&ctx, id).await?))
    }

    pub(super) async fn exercise_progress(
        &self,
        req: &Request,
        id: &str,
    ) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        let weeks = weeks_param(req.query_string_parameters().first("weeks"))?;
        Ok(json_body(
            200,
            &self.app.exercise_progress(&ctx, id, weeks).await?,
        ))
    }

    pub(super) async fn muscle_progress(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        let weeks = weeks_param(req.query_string_parameters().first("weeks"))?;
        Ok(json_body(
            200,
            &self.app.muscle_progress(&ctx, weeks).await?,
        ))
    }
}
