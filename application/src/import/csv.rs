//! A small RFC 4180 reader: comma or semicolon delimited, quoted fields with doubled quotes,
//! commas, semicolons and newlines inside, CRLF or LF line ends, a leading byte-order mark.
//! Records remember the line they start on, so a rejected row can be named, and reading stops
//! at a number of records (an import's row cap), so a file of millions of short lines is refused
//! without being held whole.
//!
//! Hand-written rather than the `csv` crate because it refuses what that crate reads leniently
//! and so silently: a quote inside an unquoted field (`5"` kept as is) and text after a closing
//! quote (`"a"b` read as `ab`) are a file damaged by an editor, and the lifter is told the line.

/// Fields a record may have: every app's export has a few dozen at most, and a line of
/// millions of empty fields must not become millions of strings.
pub const MAX_FIELDS: usize = 100;

/// One record and the (1-based) line of the file it starts on.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub line: usize,
    pub fields: Vec<String>,
}

/// Why the file cannot be read as CSV at all.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct CsvError {
    pub line: usize,
    pub message: String,
}

/// The delimiter of a file: whichever of `,` and `;` occurs more often outside quotes in its
/// first line (the header).
pub fn detect_delimiter(text: &str) -> char {
    let (mut commas, mut semicolons, mut quoted) = (0, 0, false);
    for c in text.trim_start_matches('\u{feff}').chars() {
        match c {
            '"' => quoted = !quoted,
            '\n' if !quoted => break,
            ',' if !quoted => commas += 1,
            ';' if !quoted => semicolons += 1,
            _ => {}
        }
    }
    if semicolons > commas { ';' } else { ',' }
}

/// The records of `text`, blank lines skipped, at most `max` of them (the rest is not read).
#[expect(
    clippy::too_many_lines,
    reason = "one state machine over the characters: its states and transitions read together"
)]
pub fn records(text: &str, delimiter: char, max: usize) -> Result<Vec<Record>, CsvError> {
    let text = text.trim_start_matches('\u{feff}');
    let mut out = Vec::new();
    let mut fields: Vec<String> = Vec::new();
    let mut field = String::new();
    let mut line = 1;
    let mut start_line = 1;
    // Whether the current field was quoted, and whether we are inside its quotes.
    let (mut was_quoted, mut in_quotes) = (false, false);
    let mut chars = text.chars().peekable();
    let mut end_record =
        |fields: &mut Vec<String>, field: &mut String, start: usize, was_quoted: bool| {
            fields.push(std::mem::take(field));
            let blank = fields.len() == 1 && fields[0].trim().is_empty() && !was_quoted;
            let done = std::mem::take(fields);
            if !blank {
                out.push(Record {
                    line: start,
                    fields: done,
                });
            }
            out.len()
        };
    while let Some(c) = chars.next() {
        if in_quotes {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => in_quotes = false,
                '\n' => {
                    line += 1;
                    field.push('\n');
                }
                '\r' if chars.peek() == Some(&'\n') => {}
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field.trim().is_empty() && !was_quoted => {
                field.clear();
                was_quoted = true;
                in_quotes = true;
            }
            '"' => {
                return Err(CsvError {
                    line,
                    message: "a quote inside an unquoted field (quote the whole field and double the quote)".into(),
                });
            }
            c if c == delimiter => {
                fields.push(std::mem::take(&mut field));
                was_quoted = false;
                if fields.len() >= MAX_FIELDS {
                    return Err(CsvError {
                        line,
                        message: format!(
                            "more than {MAX_FIELDS} fields on one line: not an app's export"
                        ),
                    });
                }
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' => {
                let read = end_record(&mut fields, &mut field, start_line, was_quoted);
                was_quoted = false;
                line += 1;
                start_line = line;
                if read >= max {
                    break;
                }
            }
            c if was_quoted && !c.is_whitespace() => {
                return Err(CsvError {
                    line,
                    message: format!(
                        "'{c}' after a closing quote; expected '{delimiter}' or the end of the line"
                    ),
                });
            }
            _ if was_quoted => {}
            c => field.push(c),
        }
    }
    if in_quotes {
        return Err(CsvError {
            line: start_line,
            message: "a quoted field is never closed".into(),
        });
    }
    if !field.is_empty() || !fields.is_empty() || was_quoted {
        end_record(&mut fields, &mut field, start_line, was_quoted);
    }
    out.truncate(max);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(text: &str, d: char) -> Vec<(usize, Vec<String>)> {
        records(text, d, usize::MAX)
            .unwrap()
            .into_iter()
            .map(|r| (r.line, r.fields))
            .collect()
    }

    #[test]
    fn quotes_delimiters_and_newlines_inside_fields() {
        let text = "\u{feff}a,b,c\r\n1,\"x, \"\"y\"\"\nz\",3\r\n\r\n4,,\"\"\n";
        let got = fields(text, ',');
        assert_eq!(got.len(), 3);
        assert_eq!(got[0], (1, vec!["a".into(), "b".into(), "c".into()]));
        assert_eq!(got[1].0, 2);
        assert_eq!(got[1].1[1], "x, \"y\"\nz");
        // The record after a two-line field starts on line 5 (line 4 is blank).
        assert_eq!(got[2], (5, vec!["4".into(), "".into(), "".into()]));
    }

    #[test]
    fn semicolons_are_detected_from_the_header() {
        assert_eq!(detect_delimiter("Date;Workout Name;Notes\n1,2,3,4"), ';');
        assert_eq!(detect_delimiter("Date,\"A;B\",Notes"), ',');
        let got = fields("a;b\n\"1;2\";102,5", ';');
        assert_eq!(got[1].1, vec!["1;2".to_string(), "102,5".into()]);
    }

    #[test]
    fn a_last_line_without_newline_counts() {
        assert_eq!(fields("a,b\n1,2", ',').len(), 2);
        assert_eq!(fields("a\n\"\"", ',').len(), 2);
    }

    #[test]
    fn broken_quoting_is_an_error_with_its_line() {
        // A line of more fields than any export has is refused, not held.
        let e = records(&",".repeat(MAX_FIELDS + 5), ',', 10).unwrap_err();
        assert!(e.message.contains("fields"), "{e}");
        // Reading stops at `max` records: the rest, however broken, is not read.
        let read = records("a,b\n\"1\",2\n3,4\n5,\"open\n", ',', 2).unwrap();
        assert_eq!(read.len(), 2);
        assert_eq!(read[1].fields, ["1", "2"]);
        let e = records("a,b\n1,\"open\n2,3\n", ',', 10).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("never closed"));
        let e = records("a,b\n1,\"x\"y\n", ',', 10).unwrap_err();
        assert_eq!(e.line, 2);
        let e = records("a,b\n1,x\"y\n", ',', 10).unwrap_err();
        assert!(e.message.contains("unquoted"));
    }
}
