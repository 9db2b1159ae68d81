//! One server-sent-events parser for both providers (wire-format checklist items 1 to 4).
//!
//! Lines end in `\r\n`, `\n` or `\r`; an empty line ends an event. Bytes are buffered until a
//! line is complete, so an event (or a UTF-8 character) may straddle network reads. Only `data:`
//! matters to us; `event:`, `id:`, `retry:` and `:` comments are skipped. Lines that are not
//! SSE fields at all (Gemini's raw multi-line error tail) are kept aside as `stray` text.

#[derive(Debug, Default)]
pub struct SseParser {
    buf: Vec<u8>,
    data: Option<String>,
    /// The previous chunk ended in `\r`: a `\n` at the start of the next one belongs to it.
    after_cr: bool,
    stray: String,
}

impl SseParser {
    /// Feeds bytes; returns the `data` payload of every event completed by them, in order.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        let mut start = 0;
        let mut i = 0;
        let mut bytes = bytes;
        if self.after_cr && bytes.first() == Some(&b'\n') {
            bytes = &bytes[1..];
        }
        self.after_cr = false;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' | b'\r' => {
                    self.buf.extend_from_slice(&bytes[start..i]);
                    let line = std::mem::take(&mut self.buf);
                    self.line(&String::from_utf8_lossy(&line), &mut out);
                    if bytes[i] == b'\r' {
                        if i + 1 < bytes.len() {
                            if bytes[i + 1] == b'\n' {
                                i += 1;
                            }
                        } else {
                            self.after_cr = true;
                        }
                    }
                    i += 1;
                    start = i;
                }
                _ => i += 1,
            }
        }
        self.buf.extend_from_slice(&bytes[start..]);
        out
    }

    /// The end of the body: a last event without its blank line still counts.
    pub fn finish(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.buf.is_empty() {
            let line = std::mem::take(&mut self.buf);
            self.line(&String::from_utf8_lossy(&line), &mut out);
        }
        if let Some(d) = self.data.take() {
            out.push(d);
        }
        out
    }

    /// Text that was not part of any SSE field (for example a raw JSON error object).
    pub fn stray(&self) -> &str {
        &self.stray
    }

    fn line(&mut self, line: &str, out: &mut Vec<String>) {
        if line.is_empty() {
            if let Some(d) = self.data.take() {
                out.push(d);
            }
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => match &mut self.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            },
            "event" | "id" | "retry" => {}
            _ => {
                self.stray.push_str(line);
                self.stray.push('\n');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(chunks: &[&[u8]]) -> (Vec<String>, String) {
        let mut p = SseParser::default();
        let mut out = Vec::new();
        for c in chunks {
            out.extend(p.push(c));
        }
        out.extend(p.finish());
        (out, p.stray().to_string())
    }

    #[test]
    fn crlf_lf_and_cr_framings_give_the_same_events() {
        for sep in ["\r\n", "\n", "\r"] {
            let body = format!("data: {{\"a\":1}}{sep}{sep}data:{{\"b\":2}}{sep}{sep}");
            let (events, _) = all(&[body.as_bytes()]);
            assert_eq!(events, vec!["{\"a\":1}", "{\"b\":2}"], "separator {sep:?}");
        }
    }

    #[test]
    fn events_straddling_reads_and_split_crlf_are_joined() {
        let body = "data: {\"text\":\"h\u{e9}llo\"}\r\n\r\ndata: [DONE]\r\n\r\n".as_bytes();
        // Split inside the multi-byte character and between \r and \n.
        for cut in 1..body.len() {
            let (events, _) = all(&[&body[..cut], &body[cut..]]);
            assert_eq!(
                events,
                vec!["{\"text\":\"h\u{e9}llo\"}", "[DONE]"],
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn comments_and_other_fields_are_skipped_and_data_lines_joined() {
        let (events, stray) =
            all(&[b": OPENROUTER PROCESSING\n\nevent: x\nid: 3\ndata: a\ndata: b\n\n"]);
        assert_eq!(events, vec!["a\nb"]);
        assert_eq!(stray, "");
    }

    #[test]
    fn a_raw_json_tail_is_kept_as_stray_text() {
        let (events, stray) =
            all(&[b"data: {\"x\":1}\r\n\r\n{\n  \"error\": {\n    \"code\": 503\n  }\n}\n"]);
        assert_eq!(events, vec!["{\"x\":1}"]);
        let v: serde_json::Value = serde_json::from_str(&stray).expect("tail is JSON");
        assert_eq!(v["error"]["code"], 503);
    }

    #[test]
    fn a_last_event_without_blank_line_is_delivered_at_the_end() {
        let (events, _) = all(&[b"data: tail"]);
        assert_eq!(events, vec!["tail"]);
    }
}
