//! What the devstack binary shares with the black-box tests.

pub mod coaching;
pub mod demo;
pub mod eval;
pub mod events;
pub mod fanout;
pub mod http;
pub mod smoke;
pub mod sns;
pub mod strong;
