//! SLOW lane binary: a skeleton until its issue lands; every route answers 501 NOT_IMPLEMENTED.

use lambda_http::{Error, service_fn};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    coach::telemetry::init();
    lambda_http::run(service_fn(|req| async move {
        Ok::<_, Error>(coach::lanes::not_implemented::respond("slow", &req))
    }))
    .await
}
