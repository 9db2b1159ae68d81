//! The roots of trust of every HTTPS client a binary builds (the AWS SDK's and the model's).
//!
//! Measured (`devstack init-profile`): finding and parsing the platform's root certificates was
//! the largest part of a cold start, and the model lanes paid it twice, once in the SDK's client
//! and once in reqwest's. Both clients now trust one set compiled into the binary (Mozilla's
//! roots, from `webpki-root-certs`): no certificate file is read and the set is converted once.
//! AWS endpoints and the public model APIs chain to these roots. Setting `SSL_CERT_FILE` or
//! `SSL_CERT_DIR` switches both clients back to the platform's store (a private CA, say).

use std::sync::LazyLock;

use aws_smithy_http_client::tls::{self, TlsContext, TrustStore, rustls_provider::CryptoMode};

/// Whether the operator asked for the platform's certificate store.
fn platform_store() -> bool {
    ["SSL_CERT_FILE", "SSL_CERT_DIR"]
        .iter()
        .any(|k| std::env::var_os(k).is_some_and(|v| !v.is_empty()))
}

/// The compiled-in roots as one PEM bundle, built on first use (the SDK takes PEM).
static ROOTS_PEM: LazyLock<Vec<u8>> = LazyLock::new(|| {
    let mut pem = String::with_capacity(webpki_root_certs::TLS_SERVER_ROOT_CERTS.len() * 2_000);
    for der in webpki_root_certs::TLS_SERVER_ROOT_CERTS {
        pem.push_str("-----BEGIN CERTIFICATE-----\n");
        pem.push_str(&aws_smithy_types::base64::encode(der.as_ref()));
        pem.push_str("\n-----END CERTIFICATE-----\n");
    }
    pem.into_bytes()
});

/// The SDK's HTTPS client trusting the compiled-in roots; `None` when the platform's store was
/// asked for (the SDK then loads it itself).
pub(crate) fn sdk_http_client() -> Option<aws_smithy_runtime_api::client::http::SharedHttpClient> {
    if platform_store() {
        return None;
    }
    let trust = TrustStore::empty()
        .with_native_roots(false)
        .with_pem_certificate(ROOTS_PEM.clone());
    let context = TlsContext::builder().with_trust_store(trust).build().ok()?;
    Some(
        aws_smithy_http_client::Builder::new()
            .tls_provider(tls::Provider::Rustls(CryptoMode::AwsLc))
            .tls_context(context)
            .build_https(),
    )
}

/// A reqwest builder trusting the same roots (or the platform's, when asked for).
pub(crate) fn reqwest_builder() -> reqwest::ClientBuilder {
    let builder = reqwest::Client::builder();
    if platform_store() {
        return builder;
    }
    builder.tls_certs_only(
        webpki_root_certs::TLS_SERVER_ROOT_CERTS
            .iter()
            .filter_map(|der| reqwest::Certificate::from_der(der.as_ref()).ok()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SDK reads the bundle with `pem_slice_iter` and adds each certificate to a rustls root
    /// store, panicking on one it cannot add: every root must come back byte for byte and add.
    #[test]
    fn the_sdk_reads_back_every_compiled_in_root() {
        use rustls_pki_types::CertificateDer;
        use rustls_pki_types::pem::PemObject;
        let back: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&ROOTS_PEM)
            .collect::<Result<_, _>>()
            .expect("the bundle is valid PEM");
        assert!(back.len() > 100);
        assert_eq!(back.as_slice(), webpki_root_certs::TLS_SERVER_ROOT_CERTS);
        let mut store = rustls::RootCertStore::empty();
        for cert in back {
            store.add(cert).expect("a root rustls accepts");
        }
        assert_eq!(store.len(), webpki_root_certs::TLS_SERVER_ROOT_CERTS.len());
    }

    #[test]
    fn both_clients_build() {
        assert!(reqwest_builder().build().is_ok());
        assert!(platform_store() || sdk_http_client().is_some());
    }
}
