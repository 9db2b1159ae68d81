//! The tests' fake SNS: [`devstack::sns`] on a loopback port for `AWS_ENDPOINT_URL_SNS`, stopped
//! with the test; the tests read back what was published and the endpoints phones have.

use std::sync::Arc;

use devstack::sns::Sns;
pub use devstack::sns::{Endpoint, Published};

pub struct FakeSns {
    pub endpoint: String,
    sns: Arc<Sns>,
    _server: crate::LoopbackServer,
}

impl FakeSns {
    pub fn start() -> FakeSns {
        let sns = Sns::new(None);
        let shared = sns.clone();
        let server =
            crate::LoopbackServer::start("fake SNS", move |sock| shared.clone().serve(sock));
        FakeSns {
            endpoint: server.base.clone(),
            sns,
            _server: server,
        }
    }

    pub fn published(&self) -> Vec<Published> {
        self.sns.published()
    }

    /// The endpoints that exist (created and not deleted).
    pub fn endpoints(&self) -> Vec<Endpoint> {
        self.sns.endpoints()
    }

    /// The platform reported `token` invalid (the app was removed): SNS disables its endpoint.
    pub fn disable(&self, token: &str) {
        self.sns.disable(token);
    }
}
