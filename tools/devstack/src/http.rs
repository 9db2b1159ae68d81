//! The HTTP/1.1 request reader of the local servers the tools and the tests run on 127.0.0.1
//! (the Runtime APIs of `coldstart`, `load-fast` and `init-profile`, the tests' fakes and fault
//! proxy): keep-alive, content-length bodies, nothing more.

use tokio::io::AsyncReadExt;

/// One HTTP/1.1 request (header names lower-cased).
pub struct HttpRequest {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpRequest {
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or_default()
    }
}

/// Reads the next request of a connection (head and a content-length body). `buf` keeps bytes
/// already read past it, for the next request on a kept-alive connection. `None`: closed.
pub async fn read_http_request(
    sock: &mut tokio::net::TcpStream,
    buf: &mut Vec<u8>,
) -> Option<HttpRequest> {
    let mut chunk = [0u8; 16 * 1024];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split_whitespace();
    let (method, path) = (first.next()?.to_string(), first.next()?.to_string());
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = buf[head_end..head_end + len].to_vec();
    buf.drain(..head_end + len);
    Some(HttpRequest {
        method,
        path,
        headers,
        body,
    })
}
