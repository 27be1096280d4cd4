//! The YAML tokenizer: turns text into the token stream libyaml's scanner produces, with
//! the same token boundaries, the same marks and the same error texts.
//!
//! go-yaml v2 (inside Helm's sigs.k8s.io/yaml and in Helmfile) is a Go port of libyaml,
//! and users see its errors verbatim (`yaml: line 3: did not find expected key`). Line
//! numbers in those errors come from scanner marks, and *which* error wins depends on
//! how far the scanner has looked ahead (simple keys, block scalar breaks, the reader's
//! 512-byte chunks), so this module keeps libyaml's algorithm shape: a token queue,
//! potential simple keys per flow level, an indentation stack and explicit buffer
//! "caching" points where the reader may report bad input.
//!
//! Marks count characters (`index`, `column`) like libyaml, and additionally carry the
//! byte `offset` so callers can build source spans.

use std::collections::VecDeque;

/// A position in the input: character index, 0-based line and column (in characters),
/// and byte offset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mark {
    pub index: usize,
    pub line: usize,
    pub column: usize,
    pub offset: usize,
}

/// How a scalar was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind {
    StreamStart,
    StreamEnd,
    VersionDirective(i8, i8),
    TagDirective { handle: Vec<u8>, prefix: Vec<u8> },
    DocumentStart,
    DocumentEnd,
    BlockSequenceStart,
    BlockMappingStart,
    BlockEnd,
    FlowSequenceStart,
    FlowSequenceEnd,
    FlowMappingStart,
    FlowMappingEnd,
    BlockEntry,
    FlowEntry,
    Key,
    Value,
    Alias(String),
    Anchor(String),
    Tag { handle: Vec<u8>, suffix: Vec<u8> },
    Scalar { value: String, style: ScalarStyle },
}

/// A token's type without its payload, cheap to copy for look-ahead decisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    StreamStart,
    StreamEnd,
    VersionDirective,
    TagDirective,
    DocumentStart,
    DocumentEnd,
    BlockSequenceStart,
    BlockMappingStart,
    BlockEnd,
    FlowSequenceStart,
    FlowSequenceEnd,
    FlowMappingStart,
    FlowMappingEnd,
    BlockEntry,
    FlowEntry,
    Key,
    Value,
    Alias,
    Anchor,
    Tag,
    Scalar,
}

impl TokenKind {
    pub fn tok(&self) -> Tok {
        match self {
            TokenKind::StreamStart => Tok::StreamStart,
            TokenKind::StreamEnd => Tok::StreamEnd,
            TokenKind::VersionDirective(..) => Tok::VersionDirective,
            TokenKind::TagDirective { .. } => Tok::TagDirective,
            TokenKind::DocumentStart => Tok::DocumentStart,
            TokenKind::DocumentEnd => Tok::DocumentEnd,
            TokenKind::BlockSequenceStart => Tok::BlockSequenceStart,
            TokenKind::BlockMappingStart => Tok::BlockMappingStart,
            TokenKind::BlockEnd => Tok::BlockEnd,
            TokenKind::FlowSequenceStart => Tok::FlowSequenceStart,
            TokenKind::FlowSequenceEnd => Tok::FlowSequenceEnd,
            TokenKind::FlowMappingStart => Tok::FlowMappingStart,
            TokenKind::FlowMappingEnd => Tok::FlowMappingEnd,
            TokenKind::BlockEntry => Tok::BlockEntry,
            TokenKind::FlowEntry => Tok::FlowEntry,
            TokenKind::Key => Tok::Key,
            TokenKind::Value => Tok::Value,
            TokenKind::Alias(_) => Tok::Alias,
            TokenKind::Anchor(_) => Tok::Anchor,
            TokenKind::Tag { .. } => Tok::Tag,
            TokenKind::Scalar { .. } => Tok::Scalar,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Token {
    pub kind: TokenKind,
    pub start: Mark,
    pub end: Mark,
}

/// Which stage of libyaml reported a problem; it changes how the line is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorStage {
    Reader,
    Scanner,
    Parser,
}

/// A syntax error with libyaml's fields.
#[derive(Clone, Debug)]
pub struct SyntaxError {
    pub stage: ErrorStage,
    pub problem: String,
    pub problem_mark: Mark,
    /// libyaml's context phrase (`while scanning a simple key`), for diagnostics.
    pub context: String,
    pub context_mark: Mark,
}

impl SyntaxError {
    /// The message go-yaml's `parser.fail` builds (without the `yaml: ` prefix):
    /// `line N: problem`, where N is the problem line (1-based for scanner errors,
    /// libyaml's 0-based value for parser errors), falling back to the context line,
    /// and no line at all when both are on the first line.
    pub fn go_message(&self) -> String {
        let mut line = 0;
        if self.problem_mark.line != 0 {
            line = self.problem_mark.line;
            if self.stage == ErrorStage::Scanner {
                line += 1;
            }
        } else if self.context_mark.line != 0 {
            line = self.context_mark.line;
        }
        let problem = if self.problem.is_empty() {
            "unknown problem parsing YAML content"
        } else {
            &self.problem
        };
        if line != 0 {
            format!("line {line}: {problem}")
        } else {
            problem.to_string()
        }
    }

    /// The byte offset the error points at, for diagnostics.
    pub fn offset(&self) -> usize {
        if self.stage == ErrorStage::Reader {
            self.problem_mark.offset
        } else {
            self.problem_mark.offset.max(self.context_mark.offset)
        }
    }
}

type Result<T> = std::result::Result<T, SyntaxError>;

#[derive(Clone, Copy, Debug, Default)]
struct SimpleKey {
    possible: bool,
    required: bool,
    token_number: usize,
    mark: Mark,
}

/// libyaml reads its input in raw chunks of this many bytes and validates every
/// character of a chunk as soon as it is loaded, so a bad character is reported when
/// the scanner first needs any character of its chunk.
const RAW_CHUNK: usize = 512;

/// go-yaml's `simple_keys_by_tok` map (token number → index of the simple key that
/// may turn that token into a key), with the map's exact insert/remove behaviour,
/// including entries that outlive their key. It is only ever asked about the token
/// at the head of the queue, and token numbers only grow, so entries for tokens
/// already consumed can never be asked about again and are dropped; what remains is
/// a handful of entries, cheaper to scan than to hash.
#[derive(Default)]
struct KeysByToken(Vec<(usize, usize)>);

impl KeysByToken {
    fn get(&self, token: usize) -> Option<usize> {
        self.0.iter().find(|e| e.0 == token).map(|e| e.1)
    }

    fn insert(&mut self, token: usize, idx: usize, tokens_parsed: usize) {
        if let Some(e) = self.0.iter_mut().find(|e| e.0 == token) {
            e.1 = idx;
            return;
        }
        if self.0.len() >= 8 {
            self.0.retain(|e| e.0 >= tokens_parsed);
        }
        self.0.push((token, idx));
    }

    fn remove(&mut self, token: usize) {
        if let Some(i) = self.0.iter().position(|e| e.0 == token) {
            self.0.swap_remove(i);
        }
    }

    fn clear(&mut self) {
        self.0.clear();
    }
}
const MAX_FLOW_LEVEL: usize = 10000;
const MAX_INDENTS: usize = 10000;

/// The characters that may not start a plain scalar (`-`, `?` and `:` may, when a
/// non-space follows; the caller checks that).
pub(super) fn is_indicator(c: u8) -> bool {
    matches!(
        c,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    )
}

const PAD: usize = 16;

pub struct Scanner {
    buf: Vec<u8>,
    /// Length of the real input (without padding).
    len: usize,
    /// Byte offset up to which characters have been validated.
    decoded_end: usize,
    mark: Mark,

    tokens: VecDeque<Token>,
    tokens_parsed: usize,
    token_available: bool,
    stream_start_produced: bool,
    pub(crate) stream_end_produced: bool,

    indent: isize,
    indents: Vec<isize>,
    simple_key_allowed: bool,
    simple_keys: Vec<SimpleKey>,
    simple_keys_by_tok: KeysByToken,
    flow_level: usize,
    error: Option<SyntaxError>,
    /// Buffers a scalar collects its text, line breaks and blanks in, kept between
    /// scalars so that scanning one does not allocate and grow them again; the
    /// token gets an exact-size copy of the text.
    scratch: [Vec<u8>; 4],
}

fn width(b: u8) -> usize {
    if b & 0x80 == 0 {
        1
    } else if b & 0xE0 == 0xC0 {
        2
    } else if b & 0xF0 == 0xE0 {
        3
    } else if b & 0xF8 == 0xF0 {
        4
    } else {
        0
    }
}

/// Scalar bytes are valid UTF-8 by construction (input is a `str`, escapes are
/// encoded as characters); the lossy path only guards against surprises.
fn bytes_to_string(s: &[u8]) -> String {
    match std::str::from_utf8(s) {
        Ok(t) => t.to_owned(),
        Err(_) => String::from_utf8_lossy(s).into_owned(),
    }
}

/// A single-byte character that does not end a line (comment and block scalar text).
fn is_line_byte(b: u8) -> bool {
    b == b'\t' || (0x20..0x7F).contains(&b)
}

fn is_alpha_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

fn is_hex_byte(b: u8) -> bool {
    b.is_ascii_hexdigit()
}

fn hex_val(b: u8) -> u32 {
    match b {
        b'A'..=b'F' => (b - b'A' + 10) as u32,
        b'a'..=b'f' => (b - b'a' + 10) as u32,
        _ => (b.wrapping_sub(b'0')) as u32,
    }
}

/// Whether a character may appear in a YAML stream at all (libyaml's reader check).
fn allowed_char(c: char) -> bool {
    let v = c as u32;
    matches!(v, 0x09 | 0x0A | 0x0D | 0x85)
        || (0x20..=0x7E).contains(&v)
        || (0xA0..=0xD7FF).contains(&v)
        || (0xE000..=0xFFFD).contains(&v)
        || (0x10000..=0x10FFFF).contains(&v)
}

impl Scanner {
    pub fn new(input: &str) -> Scanner {
        let mut buf = Vec::with_capacity(input.len() + PAD);
        buf.extend_from_slice(input.as_bytes());
        let len = buf.len();
        buf.resize(len + PAD, 0);
        let mut s = Scanner {
            buf,
            len,
            decoded_end: 0,
            mark: Mark::default(),
            tokens: VecDeque::new(),
            tokens_parsed: 0,
            token_available: false,
            stream_start_produced: false,
            stream_end_produced: false,
            indent: -1,
            indents: Vec::new(),
            simple_key_allowed: false,
            simple_keys: Vec::new(),
            simple_keys_by_tok: KeysByToken::default(),
            flow_level: 0,
            error: None,
            scratch: Default::default(),
        };
        // The reader drops a UTF-8 byte order mark at the very start without counting it.
        if input.as_bytes().starts_with(b"\xEF\xBB\xBF") {
            s.mark.offset = 3;
        }
        s
    }

    // ---- buffer access ----------------------------------------------------------------

    #[inline]
    fn at(&self, k: usize) -> u8 {
        self.buf.get(self.mark.offset + k).copied().unwrap_or(0)
    }

    #[inline]
    fn cur(&self) -> u8 {
        self.at(0)
    }

    fn is_blank_at(&self, k: usize) -> bool {
        let b = self.at(k);
        b == b' ' || b == b'\t'
    }

    fn is_break_at(&self, k: usize) -> bool {
        let b = self.at(k);
        b == b'\r'
            || b == b'\n'
            || (b == 0xC2 && self.at(k + 1) == 0x85)
            || (b == 0xE2
                && self.at(k + 1) == 0x80
                && (self.at(k + 2) == 0xA8 || self.at(k + 2) == 0xA9))
    }

    fn is_z_at(&self, k: usize) -> bool {
        self.at(k) == 0
    }

    fn is_breakz_at(&self, k: usize) -> bool {
        self.is_break_at(k) || self.is_z_at(k)
    }

    fn is_blankz_at(&self, k: usize) -> bool {
        self.is_blank_at(k) || self.is_breakz_at(k)
    }

    fn is_bom_at(&self, k: usize) -> bool {
        self.at(k) == 0xEF && self.at(k + 1) == 0xBB && self.at(k + 2) == 0xBF
    }

    /// Makes sure the next `n` characters have been loaded, reporting a reader error
    /// if loading them meets a character YAML forbids.
    // Called for nearly every character: the common case (already checked) stays inline.
    #[inline(always)]
    fn cache(&mut self, n: usize) -> Result<()> {
        if self.mark.offset + 4 * n <= self.decoded_end {
            return Ok(());
        }
        self.cache_more(n)
    }

    #[inline(never)]
    fn cache_more(&mut self, n: usize) -> Result<()> {
        let pos = self.mark.offset;
        // Find the byte position just after the n-th character.
        let mut end = pos;
        for _ in 0..n {
            if end >= self.len {
                end += 1;
                continue;
            }
            let w = width(self.buf[end]).max(1);
            end += w;
        }
        while end > self.decoded_end && self.decoded_end < self.len {
            let start = self.decoded_end;
            let mut stop = (start + RAW_CHUNK).min(self.len);
            // A character split by the chunk end waits for the next chunk.
            while stop < self.len && stop > start && (self.buf[stop] & 0xC0) == 0x80 {
                stop -= 1;
            }
            let bytes = &self.buf[start..stop];
            // Printable ASCII and the three allowed controls need no decoding.
            // Folded without early exit so that it vectorizes: nearly every chunk passes.
            let plain_ascii = bytes.iter().fold(true, |all, &b| {
                all & ((0x20..0x7F).contains(&b) | (b == b'\t') | (b == b'\n') | (b == b'\r'))
            });
            let text = if plain_ascii {
                ""
            } else {
                std::str::from_utf8(bytes).unwrap_or("")
            };
            for (i, c) in text.char_indices() {
                // A byte that is not UTF-8 (see `gostr`) stops libyaml's decoder.
                let raw = crate::template::gostr::raw_byte(c).is_some();
                if raw || !allowed_char(c) {
                    // The BOM that starts a stream is not a content character.
                    if start + i == 0 && c == '\u{FEFF}' {
                        continue;
                    }
                    let problem = if raw {
                        crate::template::gostr::yaml_reader_error(&text[i..])
                            .unwrap_or("invalid leading UTF-8 octet")
                    } else {
                        "control characters are not allowed"
                    };
                    let err = SyntaxError {
                        stage: ErrorStage::Reader,
                        problem: problem.to_string(),
                        problem_mark: Mark {
                            offset: start + i,
                            ..Mark::default()
                        },
                        context: String::new(),
                        context_mark: Mark::default(),
                    };
                    self.error = Some(err.clone());
                    return Err(err);
                }
            }
            if stop == start {
                break;
            }
            self.decoded_end = stop;
        }
        Ok(())
    }

    /// The length of the run of single-byte characters accepted by `ok` at the
    /// current position, limited to input the reader has already validated with
    /// `margin` bytes to spare (`4 * n` for a loop that calls `cache(n)` after each
    /// character). Within that limit those `cache` calls have nothing to do, so
    /// taking the run at once is exactly what the character loop would do. `ok` must
    /// reject line breaks, NUL and bytes above 0x7F.
    #[inline]
    fn ascii_run(&self, margin: usize, ok: impl Fn(u8) -> bool) -> usize {
        let start = self.mark.offset;
        let limit = self.decoded_end.saturating_sub(margin);
        if start >= limit {
            return 0;
        }
        self.buf[start..limit]
            .iter()
            .position(|&b| !ok(b))
            .unwrap_or(limit - start)
    }

    /// [`Scanner::ascii_run`] for [`is_line_byte`], for comments and block scalar
    /// lines: those runs are long (a third of a typical values file is comments), so
    /// they are measured eight bytes at a time first.
    fn line_run(&self, margin: usize) -> usize {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let start = self.mark.offset;
        let limit = self.decoded_end.saturating_sub(margin);
        if start >= limit {
            return 0;
        }
        let run = &self.buf[start..limit];
        let mut i = 0;
        for chunk in run.chunks_exact(8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            let x = u64::from_le_bytes(word);
            // Nonzero exactly when some byte is below 0x20 (tabs included: the byte
            // loop below takes them) or above 0x7E; the lowest such byte sees no
            // borrow or carry from the bytes before it.
            let below = x.wrapping_sub(ONES * 0x20) & !x & HIGH;
            let above = (x.wrapping_add(ONES) | x) & HIGH;
            if below | above != 0 {
                break;
            }
            i += 8;
        }
        i + run[i..]
            .iter()
            .position(|&b| !is_line_byte(b))
            .unwrap_or(run.len() - i)
    }

    /// Moves past `k` single-byte characters on the current line.
    #[inline]
    fn advance(&mut self, k: usize) {
        self.mark.index += k;
        self.mark.column += k;
        self.mark.offset += k;
    }

    /// [`Scanner::read`] for a run measured by [`Scanner::ascii_run`].
    #[inline]
    fn read_run(&mut self, k: usize, s: &mut Vec<u8>) {
        let p = self.mark.offset;
        s.extend_from_slice(&self.buf[p..p + k]);
        self.advance(k);
    }

    fn skip(&mut self) {
        let w = width(self.cur()).max(1);
        self.mark.index += 1;
        self.mark.column += 1;
        self.mark.offset += w;
    }

    fn skip_line(&mut self) {
        if self.cur() == b'\r' && self.at(1) == b'\n' {
            self.mark.index += 2;
            self.mark.column = 0;
            self.mark.line += 1;
            self.mark.offset += 2;
        } else if self.is_break_at(0) {
            let w = width(self.cur()).max(1);
            self.mark.index += 1;
            self.mark.column = 0;
            self.mark.line += 1;
            self.mark.offset += w;
        }
    }

    fn read(&mut self, s: &mut Vec<u8>) {
        let w = width(self.cur()).max(1);
        let p = self.mark.offset;
        s.extend_from_slice(&self.buf[p..p + w]);
        self.mark.offset += w;
        self.mark.index += 1;
        self.mark.column += 1;
    }

    fn read_line(&mut self, s: &mut Vec<u8>) {
        let b0 = self.cur();
        let b1 = self.at(1);
        if b0 == b'\r' && b1 == b'\n' {
            s.push(b'\n');
            self.mark.offset += 2;
            self.mark.index += 1;
        } else if b0 == b'\r' || b0 == b'\n' {
            s.push(b'\n');
            self.mark.offset += 1;
        } else if b0 == 0xC2 && b1 == 0x85 {
            s.push(b'\n');
            self.mark.offset += 2;
        } else if b0 == 0xE2 && b1 == 0x80 && (self.at(2) == 0xA8 || self.at(2) == 0xA9) {
            let p = self.mark.offset;
            s.extend_from_slice(&self.buf[p..p + 3]);
            self.mark.offset += 3;
        } else {
            return;
        }
        self.mark.index += 1;
        self.mark.column = 0;
        self.mark.line += 1;
    }

    /// The scalar buffers, emptied: text, leading break, trailing breaks, blanks.
    fn take_scratch(&mut self) -> [Vec<u8>; 4] {
        let mut bufs = std::mem::take(&mut self.scratch);
        for b in &mut bufs {
            b.clear();
        }
        bufs
    }

    /// The scalar text collected in `bufs[0]`, handing the buffers back for the next
    /// scalar.
    fn finish_scalar(&mut self, bufs: [Vec<u8>; 4]) -> String {
        let value = bytes_to_string(&bufs[0]);
        self.scratch = bufs;
        value
    }

    fn scanner_error(&mut self, context: &str, context_mark: Mark, problem: &str) -> SyntaxError {
        let err = SyntaxError {
            stage: ErrorStage::Scanner,
            problem: problem.to_string(),
            problem_mark: self.mark,
            context: context.to_string(),
            context_mark,
        };
        self.error = Some(err.clone());
        err
    }

    // ---- token queue ------------------------------------------------------------------

    /// The next token, scanning more input as needed.
    // The parser peeks several times per token: the common case (the token is
    // already there) stays inline and scanning stays out of line.
    #[inline]
    pub fn peek(&mut self) -> Result<&Token> {
        if !self.token_available {
            self.prepare_token()?;
        }
        if self.tokens.is_empty() {
            return Err(self.scanner_error("", Mark::default(), "no more tokens"));
        }
        Ok(&self.tokens[0])
    }

    /// Scans up to the next complete token. An error is only recorded while
    /// scanning, and a failed scan leaves `token_available` false, so the recorded
    /// error is repeated on every later peek.
    #[inline(never)]
    fn prepare_token(&mut self) -> Result<()> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        self.fetch_more_tokens()
    }

    /// Consumes the token returned by [`Scanner::peek`].
    pub fn skip_token(&mut self) {
        let _ = self.take_token();
    }

    /// Consumes the token returned by [`Scanner::peek`], handing over its payload.
    pub fn take_token(&mut self) -> Option<Token> {
        self.token_available = false;
        self.tokens_parsed += 1;
        let t = self.tokens.pop_front();
        if let Some(t) = &t {
            self.stream_end_produced = t.kind == TokenKind::StreamEnd;
        }
        t
    }

    fn insert_token(&mut self, pos: Option<usize>, token: Token) {
        match pos {
            None => self.tokens.push_back(token),
            Some(p) => {
                let p = p.min(self.tokens.len());
                self.tokens.insert(p, token);
            }
        }
    }

    fn push_token(&mut self, kind: TokenKind, start: Mark, end: Mark) {
        self.insert_token(None, Token { kind, start, end });
    }

    fn fetch_more_tokens(&mut self) -> Result<()> {
        loop {
            if !self.tokens.is_empty() {
                match self.simple_keys_by_tok.get(self.tokens_parsed) {
                    None => break,
                    Some(idx) => {
                        if !self.simple_key_is_valid(idx)? {
                            break;
                        }
                    }
                }
            }
            self.fetch_next_token()?;
        }
        self.token_available = true;
        Ok(())
    }

    fn fetch_next_token(&mut self) -> Result<()> {
        self.cache(1)?;
        if !self.stream_start_produced {
            self.fetch_stream_start();
            return Ok(());
        }
        self.scan_to_next_token()?;
        self.unroll_indent(self.mark.column as isize);
        self.cache(4)?;

        let c = self.cur();
        if self.is_z_at(0) {
            return self.fetch_stream_end();
        }
        if self.mark.column == 0 && c == b'%' {
            return self.fetch_directive();
        }
        if self.mark.column == 0
            && c == b'-'
            && self.at(1) == b'-'
            && self.at(2) == b'-'
            && self.is_blankz_at(3)
        {
            return self.fetch_document_indicator(TokenKind::DocumentStart);
        }
        if self.mark.column == 0
            && c == b'.'
            && self.at(1) == b'.'
            && self.at(2) == b'.'
            && self.is_blankz_at(3)
        {
            return self.fetch_document_indicator(TokenKind::DocumentEnd);
        }
        match c {
            b'[' => return self.fetch_flow_collection_start(TokenKind::FlowSequenceStart),
            b'{' => return self.fetch_flow_collection_start(TokenKind::FlowMappingStart),
            b']' => return self.fetch_flow_collection_end(TokenKind::FlowSequenceEnd),
            b'}' => return self.fetch_flow_collection_end(TokenKind::FlowMappingEnd),
            b',' => return self.fetch_flow_entry(),
            _ => {}
        }
        if c == b'-' && self.is_blankz_at(1) {
            return self.fetch_block_entry();
        }
        if c == b'?' && (self.flow_level > 0 || self.is_blankz_at(1)) {
            return self.fetch_key();
        }
        if c == b':' && (self.flow_level > 0 || self.is_blankz_at(1)) {
            return self.fetch_value();
        }
        if c == b'*' {
            return self.fetch_anchor(false);
        }
        if c == b'&' {
            return self.fetch_anchor(true);
        }
        if c == b'!' {
            return self.fetch_tag();
        }
        if c == b'|' && self.flow_level == 0 {
            return self.fetch_block_scalar(true);
        }
        if c == b'>' && self.flow_level == 0 {
            return self.fetch_block_scalar(false);
        }
        if c == b'\'' {
            return self.fetch_flow_scalar(true);
        }
        if c == b'"' {
            return self.fetch_flow_scalar(false);
        }
        if !(self.is_blankz_at(0) || is_indicator(c))
            || (c == b'-' && !self.is_blank_at(1))
            || (self.flow_level == 0 && (c == b'?' || c == b':') && !self.is_blankz_at(1))
        {
            return self.fetch_plain_scalar();
        }
        let mark = self.mark;
        Err(self.scanner_error(
            "while scanning for the next token",
            mark,
            "found character that cannot start any token",
        ))
    }

    // ---- simple keys ------------------------------------------------------------------

    fn simple_key_is_valid(&mut self, idx: usize) -> Result<bool> {
        let Some(key) = self.simple_keys.get(idx).copied() else {
            return Ok(false);
        };
        if !key.possible {
            return Ok(false);
        }
        if key.mark.line < self.mark.line || key.mark.index + 1024 < self.mark.index {
            if key.required {
                return Err(self.scanner_error(
                    "while scanning a simple key",
                    key.mark,
                    "could not find expected ':'",
                ));
            }
            self.simple_keys[idx].possible = false;
            return Ok(false);
        }
        Ok(true)
    }

    fn save_simple_key(&mut self) -> Result<()> {
        let required = self.flow_level == 0 && self.indent == self.mark.column as isize;
        if self.simple_key_allowed {
            let key = SimpleKey {
                possible: true,
                required,
                token_number: self.tokens_parsed + self.tokens.len(),
                mark: self.mark,
            };
            self.remove_simple_key()?;
            let last = self.simple_keys.len() - 1;
            self.simple_keys[last] = key;
            self.simple_keys_by_tok
                .insert(key.token_number, last, self.tokens_parsed);
        }
        Ok(())
    }

    fn remove_simple_key(&mut self) -> Result<()> {
        let i = self.simple_keys.len() - 1;
        let key = self.simple_keys[i];
        if key.possible {
            if key.required {
                return Err(self.scanner_error(
                    "while scanning a simple key",
                    key.mark,
                    "could not find expected ':'",
                ));
            }
            self.simple_keys[i].possible = false;
            self.simple_keys_by_tok.remove(key.token_number);
        }
        Ok(())
    }

    fn increase_flow_level(&mut self) -> Result<()> {
        self.simple_keys.push(SimpleKey {
            possible: false,
            required: false,
            token_number: self.tokens_parsed + self.tokens.len(),
            mark: self.mark,
        });
        self.flow_level += 1;
        if self.flow_level > MAX_FLOW_LEVEL {
            let mark = self.simple_keys[self.simple_keys.len() - 1].mark;
            return Err(self.scanner_error(
                "while increasing flow level",
                mark,
                &format!("exceeded max depth of {MAX_FLOW_LEVEL}"),
            ));
        }
        Ok(())
    }

    fn decrease_flow_level(&mut self) {
        if self.flow_level > 0 {
            self.flow_level -= 1;
            if let Some(last) = self.simple_keys.pop() {
                self.simple_keys_by_tok.remove(last.token_number);
            }
        }
    }

    // ---- indentation ------------------------------------------------------------------

    fn roll_indent(
        &mut self,
        column: isize,
        number: Option<usize>,
        kind: TokenKind,
        mark: Mark,
    ) -> Result<()> {
        if self.flow_level > 0 {
            return Ok(());
        }
        if self.indent < column {
            self.indents.push(self.indent);
            self.indent = column;
            if self.indents.len() > MAX_INDENTS {
                let mark = self.simple_keys[self.simple_keys.len() - 1].mark;
                return Err(self.scanner_error(
                    "while increasing indent level",
                    mark,
                    &format!("exceeded max depth of {MAX_INDENTS}"),
                ));
            }
            let token = Token {
                kind,
                start: mark,
                end: mark,
            };
            let pos = number.map(|n| n.saturating_sub(self.tokens_parsed));
            self.insert_token(pos, token);
        }
        Ok(())
    }

    fn unroll_indent(&mut self, column: isize) {
        if self.flow_level > 0 {
            return;
        }
        while self.indent > column {
            let m = self.mark;
            self.push_token(TokenKind::BlockEnd, m, m);
            self.indent = self.indents.pop().unwrap_or(-1);
        }
    }

    // ---- fetchers ---------------------------------------------------------------------

    fn fetch_stream_start(&mut self) {
        self.indent = -1;
        self.simple_keys.push(SimpleKey::default());
        self.simple_keys_by_tok.clear();
        self.simple_key_allowed = true;
        self.stream_start_produced = true;
        let m = self.mark;
        self.push_token(TokenKind::StreamStart, m, m);
    }

    fn fetch_stream_end(&mut self) -> Result<()> {
        if self.mark.column != 0 {
            self.mark.column = 0;
            self.mark.line += 1;
        }
        self.unroll_indent(-1);
        self.remove_simple_key()?;
        self.simple_key_allowed = false;
        let m = self.mark;
        self.push_token(TokenKind::StreamEnd, m, m);
        Ok(())
    }

    fn fetch_directive(&mut self) -> Result<()> {
        self.unroll_indent(-1);
        self.remove_simple_key()?;
        self.simple_key_allowed = false;
        let token = self.scan_directive()?;
        self.insert_token(None, token);
        Ok(())
    }

    fn fetch_document_indicator(&mut self, kind: TokenKind) -> Result<()> {
        self.unroll_indent(-1);
        self.remove_simple_key()?;
        self.simple_key_allowed = false;
        let start = self.mark;
        self.skip();
        self.skip();
        self.skip();
        let end = self.mark;
        self.push_token(kind, start, end);
        Ok(())
    }

    fn fetch_flow_collection_start(&mut self, kind: TokenKind) -> Result<()> {
        self.save_simple_key()?;
        self.increase_flow_level()?;
        self.simple_key_allowed = true;
        let start = self.mark;
        self.skip();
        let end = self.mark;
        self.push_token(kind, start, end);
        Ok(())
    }

    fn fetch_flow_collection_end(&mut self, kind: TokenKind) -> Result<()> {
        self.remove_simple_key()?;
        self.decrease_flow_level();
        self.simple_key_allowed = false;
        let start = self.mark;
        self.skip();
        let end = self.mark;
        self.push_token(kind, start, end);
        Ok(())
    }

    fn fetch_flow_entry(&mut self) -> Result<()> {
        self.remove_simple_key()?;
        self.simple_key_allowed = true;
        let start = self.mark;
        self.skip();
        let end = self.mark;
        self.push_token(TokenKind::FlowEntry, start, end);
        Ok(())
    }

    fn fetch_block_entry(&mut self) -> Result<()> {
        if self.flow_level == 0 {
            if !self.simple_key_allowed {
                let m = self.mark;
                return Err(self.scanner_error(
                    "",
                    m,
                    "block sequence entries are not allowed in this context",
                ));
            }
            let m = self.mark;
            self.roll_indent(m.column as isize, None, TokenKind::BlockSequenceStart, m)?;
        }
        self.remove_simple_key()?;
        self.simple_key_allowed = true;
        let start = self.mark;
        self.skip();
        let end = self.mark;
        self.push_token(TokenKind::BlockEntry, start, end);
        Ok(())
    }

    fn fetch_key(&mut self) -> Result<()> {
        if self.flow_level == 0 {
            if !self.simple_key_allowed {
                let m = self.mark;
                return Err(self.scanner_error(
                    "",
                    m,
                    "mapping keys are not allowed in this context",
                ));
            }
            let m = self.mark;
            self.roll_indent(m.column as isize, None, TokenKind::BlockMappingStart, m)?;
        }
        self.remove_simple_key()?;
        self.simple_key_allowed = self.flow_level == 0;
        let start = self.mark;
        self.skip();
        let end = self.mark;
        self.push_token(TokenKind::Key, start, end);
        Ok(())
    }

    fn fetch_value(&mut self) -> Result<()> {
        let idx = self.simple_keys.len() - 1;
        if self.simple_key_is_valid(idx)? {
            let key = self.simple_keys[idx];
            let token = Token {
                kind: TokenKind::Key,
                start: key.mark,
                end: key.mark,
            };
            let pos = key.token_number.saturating_sub(self.tokens_parsed);
            self.insert_token(Some(pos), token);
            self.roll_indent(
                key.mark.column as isize,
                Some(key.token_number),
                TokenKind::BlockMappingStart,
                key.mark,
            )?;
            self.simple_keys[idx].possible = false;
            self.simple_keys_by_tok.remove(key.token_number);
            self.simple_key_allowed = false;
        } else {
            if self.flow_level == 0 {
                if !self.simple_key_allowed {
                    let m = self.mark;
                    return Err(self.scanner_error(
                        "",
                        m,
                        "mapping values are not allowed in this context",
                    ));
                }
                let m = self.mark;
                self.roll_indent(m.column as isize, None, TokenKind::BlockMappingStart, m)?;
            }
            self.simple_key_allowed = self.flow_level == 0;
        }
        let start = self.mark;
        self.skip();
        let end = self.mark;
        self.push_token(TokenKind::Value, start, end);
        Ok(())
    }

    fn fetch_anchor(&mut self, anchor: bool) -> Result<()> {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let token = self.scan_anchor(anchor)?;
        self.insert_token(None, token);
        Ok(())
    }

    fn fetch_tag(&mut self) -> Result<()> {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let token = self.scan_tag()?;
        self.insert_token(None, token);
        Ok(())
    }

    fn fetch_block_scalar(&mut self, literal: bool) -> Result<()> {
        self.remove_simple_key()?;
        self.simple_key_allowed = true;
        let token = self.scan_block_scalar(literal)?;
        self.insert_token(None, token);
        Ok(())
    }

    fn fetch_flow_scalar(&mut self, single: bool) -> Result<()> {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let token = self.scan_flow_scalar(single)?;
        self.insert_token(None, token);
        Ok(())
    }

    fn fetch_plain_scalar(&mut self) -> Result<()> {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let token = self.scan_plain_scalar()?;
        self.insert_token(None, token);
        Ok(())
    }

    // ---- scanners ---------------------------------------------------------------------

    fn scan_to_next_token(&mut self) -> Result<()> {
        loop {
            self.cache(1)?;
            if self.mark.column == 0 && self.is_bom_at(0) {
                self.skip();
            }
            self.cache(1)?;
            let tabs = self.flow_level > 0 || !self.simple_key_allowed;
            let k = self.ascii_run(4, |b| b == b' ' || (tabs && b == b'\t'));
            self.advance(k);
            while self.cur() == b' ' || (tabs && self.cur() == b'\t') {
                self.skip();
                self.cache(1)?;
            }
            if self.cur() == b'#' {
                loop {
                    let k = self.line_run(4);
                    self.advance(k);
                    if self.is_breakz_at(0) {
                        break;
                    }
                    self.skip();
                    self.cache(1)?;
                }
            }
            if self.is_break_at(0) {
                self.cache(2)?;
                self.skip_line();
                if self.flow_level == 0 {
                    self.simple_key_allowed = true;
                }
            } else {
                break;
            }
        }
        Ok(())
    }

    fn skip_blanks(&mut self) -> Result<()> {
        self.cache(1)?;
        while self.is_blank_at(0) {
            self.skip();
            self.cache(1)?;
        }
        Ok(())
    }

    fn skip_comment(&mut self) -> Result<()> {
        if self.cur() == b'#' {
            while !self.is_breakz_at(0) {
                self.skip();
                self.cache(1)?;
            }
        }
        Ok(())
    }

    fn scan_directive(&mut self) -> Result<Token> {
        let start = self.mark;
        self.skip();
        let name = self.scan_directive_name(start)?;
        let kind = if name == b"YAML" {
            let (major, minor) = self.scan_version_directive_value(start)?;
            TokenKind::VersionDirective(major, minor)
        } else if name == b"TAG" {
            let (handle, prefix) = self.scan_tag_directive_value(start)?;
            TokenKind::TagDirective { handle, prefix }
        } else {
            return Err(self.scanner_error(
                "while scanning a directive",
                start,
                "found unknown directive name",
            ));
        };
        let end = self.mark;
        self.skip_blanks()?;
        self.skip_comment()?;
        if !self.is_breakz_at(0) {
            return Err(self.scanner_error(
                "while scanning a directive",
                start,
                "did not find expected comment or line break",
            ));
        }
        if self.is_break_at(0) {
            self.cache(2)?;
            self.skip_line();
        }
        Ok(Token { kind, start, end })
    }

    fn scan_directive_name(&mut self, start: Mark) -> Result<Vec<u8>> {
        self.cache(1)?;
        let mut s = Vec::new();
        while is_alpha_byte(self.cur()) {
            self.read(&mut s);
            self.cache(1)?;
        }
        if s.is_empty() {
            return Err(self.scanner_error(
                "while scanning a directive",
                start,
                "could not find expected directive name",
            ));
        }
        if !self.is_blankz_at(0) {
            return Err(self.scanner_error(
                "while scanning a directive",
                start,
                "found unexpected non-alphabetical character",
            ));
        }
        Ok(s)
    }

    fn scan_version_directive_value(&mut self, start: Mark) -> Result<(i8, i8)> {
        self.skip_blanks()?;
        let major = self.scan_version_directive_number(start)?;
        if self.cur() != b'.' {
            return Err(self.scanner_error(
                "while scanning a %YAML directive",
                start,
                "did not find expected digit or '.' character",
            ));
        }
        self.skip();
        let minor = self.scan_version_directive_number(start)?;
        Ok((major, minor))
    }

    fn scan_version_directive_number(&mut self, start: Mark) -> Result<i8> {
        self.cache(1)?;
        let mut value: i8 = 0;
        let mut length = 0;
        while self.cur().is_ascii_digit() {
            length += 1;
            if length > 2 {
                return Err(self.scanner_error(
                    "while scanning a %YAML directive",
                    start,
                    "found extremely long version number",
                ));
            }
            value = value * 10 + (self.cur() - b'0') as i8;
            self.skip();
            self.cache(1)?;
        }
        if length == 0 {
            return Err(self.scanner_error(
                "while scanning a %YAML directive",
                start,
                "did not find expected version number",
            ));
        }
        Ok(value)
    }

    fn scan_tag_directive_value(&mut self, start: Mark) -> Result<(Vec<u8>, Vec<u8>)> {
        self.skip_blanks()?;
        let handle = self.scan_tag_handle(true, start)?;
        self.cache(1)?;
        if !self.is_blank_at(0) {
            return Err(self.scanner_error(
                "while scanning a %TAG directive",
                start,
                "did not find expected whitespace",
            ));
        }
        while self.is_blank_at(0) {
            self.skip();
            self.cache(1)?;
        }
        let prefix = self.scan_tag_uri(true, &[], start)?;
        self.cache(1)?;
        if !self.is_blankz_at(0) {
            return Err(self.scanner_error(
                "while scanning a %TAG directive",
                start,
                "did not find expected whitespace or line break",
            ));
        }
        Ok((handle, prefix))
    }

    fn scan_anchor(&mut self, anchor: bool) -> Result<Token> {
        let start = self.mark;
        self.skip();
        self.cache(1)?;
        let mut s = Vec::new();
        while is_alpha_byte(self.cur()) {
            self.read(&mut s);
            self.cache(1)?;
        }
        let end = self.mark;
        let c = self.cur();
        if s.is_empty()
            || !(self.is_blankz_at(0)
                || matches!(c, b'?' | b':' | b',' | b']' | b'}' | b'%' | b'@' | b'`'))
        {
            let context = if anchor {
                "while scanning an anchor"
            } else {
                "while scanning an alias"
            };
            return Err(self.scanner_error(
                context,
                start,
                "did not find expected alphabetic or numeric character",
            ));
        }
        let name = String::from_utf8_lossy(&s).into_owned();
        let kind = if anchor {
            TokenKind::Anchor(name)
        } else {
            TokenKind::Alias(name)
        };
        Ok(Token { kind, start, end })
    }

    fn tag_error(&mut self, directive: bool, start: Mark, problem: &str) -> SyntaxError {
        let context = if directive {
            "while parsing a %TAG directive"
        } else {
            "while parsing a tag"
        };
        self.scanner_error(context, start, problem)
    }

    fn scan_tag(&mut self) -> Result<Token> {
        let start = self.mark;
        self.cache(2)?;
        let handle;
        let suffix;
        if self.at(1) == b'<' {
            self.skip();
            self.skip();
            suffix = self.scan_tag_uri(false, &[], start)?;
            if self.cur() != b'>' {
                return Err(self.scanner_error(
                    "while scanning a tag",
                    start,
                    "did not find the expected '>'",
                ));
            }
            self.skip();
            handle = Vec::new();
        } else {
            let h = self.scan_tag_handle(false, start)?;
            if h.len() > 1 && h[0] == b'!' && h[h.len() - 1] == b'!' {
                suffix = self.scan_tag_uri(false, &[], start)?;
                handle = h;
            } else {
                let s = self.scan_tag_uri(false, &h, start)?;
                if s.is_empty() {
                    // The lone '!' tag.
                    handle = Vec::new();
                    suffix = b"!".to_vec();
                } else {
                    handle = b"!".to_vec();
                    suffix = s;
                }
            }
        }
        self.cache(1)?;
        if !self.is_blankz_at(0) {
            return Err(self.scanner_error(
                "while scanning a tag",
                start,
                "did not find expected whitespace or line break",
            ));
        }
        let end = self.mark;
        Ok(Token {
            kind: TokenKind::Tag { handle, suffix },
            start,
            end,
        })
    }

    fn scan_tag_handle(&mut self, directive: bool, start: Mark) -> Result<Vec<u8>> {
        self.cache(1)?;
        if self.cur() != b'!' {
            return Err(self.tag_error(directive, start, "did not find expected '!'"));
        }
        let mut s = Vec::new();
        self.read(&mut s);
        self.cache(1)?;
        while is_alpha_byte(self.cur()) {
            self.read(&mut s);
            self.cache(1)?;
        }
        if self.cur() == b'!' {
            self.read(&mut s);
        } else if directive && s != b"!" {
            return Err(self.tag_error(directive, start, "did not find expected '!'"));
        }
        Ok(s)
    }

    fn scan_tag_uri(&mut self, directive: bool, head: &[u8], start: Mark) -> Result<Vec<u8>> {
        let mut s = Vec::new();
        let mut has_tag = !head.is_empty();
        if head.len() > 1 {
            s.extend_from_slice(&head[1..]);
        }
        self.cache(1)?;
        loop {
            let c = self.cur();
            let ok = is_alpha_byte(c)
                || matches!(
                    c,
                    b';' | b'/'
                        | b'?'
                        | b':'
                        | b'@'
                        | b'&'
                        | b'='
                        | b'+'
                        | b'$'
                        | b','
                        | b'.'
                        | b'!'
                        | b'~'
                        | b'*'
                        | b'\''
                        | b'('
                        | b')'
                        | b'['
                        | b']'
                        | b'%'
                );
            if !ok {
                break;
            }
            if c == b'%' {
                self.scan_uri_escapes(directive, start, &mut s)?;
            } else {
                self.read(&mut s);
            }
            self.cache(1)?;
            has_tag = true;
        }
        if !has_tag {
            return Err(self.tag_error(directive, start, "did not find expected tag URI"));
        }
        Ok(s)
    }

    fn scan_uri_escapes(&mut self, directive: bool, start: Mark, s: &mut Vec<u8>) -> Result<()> {
        let mut w: usize = 1024;
        while w > 0 {
            self.cache(3)?;
            if !(self.cur() == b'%' && is_hex_byte(self.at(1)) && is_hex_byte(self.at(2))) {
                return Err(self.tag_error(directive, start, "did not find URI escaped octet"));
            }
            let octet = ((hex_val(self.at(1)) << 4) + hex_val(self.at(2))) as u8;
            if w == 1024 {
                w = width(octet);
                if w == 0 {
                    return Err(self.tag_error(
                        directive,
                        start,
                        "found an incorrect leading UTF-8 octet",
                    ));
                }
            } else if octet & 0xC0 != 0x80 {
                return Err(self.tag_error(
                    directive,
                    start,
                    "found an incorrect trailing UTF-8 octet",
                ));
            }
            s.push(octet);
            self.skip();
            self.skip();
            self.skip();
            w -= 1;
        }
        Ok(())
    }

    fn scan_block_scalar(&mut self, literal: bool) -> Result<Token> {
        let start = self.mark;
        self.skip();
        self.cache(1)?;
        let mut chomping = 0i32;
        let mut increment = 0isize;
        if self.cur() == b'+' || self.cur() == b'-' {
            chomping = if self.cur() == b'+' { 1 } else { -1 };
            self.skip();
            self.cache(1)?;
            if self.cur().is_ascii_digit() {
                if self.cur() == b'0' {
                    return Err(self.scanner_error(
                        "while scanning a block scalar",
                        start,
                        "found an indentation indicator equal to 0",
                    ));
                }
                increment = (self.cur() - b'0') as isize;
                self.skip();
            }
        } else if self.cur().is_ascii_digit() {
            if self.cur() == b'0' {
                return Err(self.scanner_error(
                    "while scanning a block scalar",
                    start,
                    "found an indentation indicator equal to 0",
                ));
            }
            increment = (self.cur() - b'0') as isize;
            self.skip();
            self.cache(1)?;
            if self.cur() == b'+' || self.cur() == b'-' {
                chomping = if self.cur() == b'+' { 1 } else { -1 };
                self.skip();
            }
        }
        self.skip_blanks()?;
        self.skip_comment()?;
        if !self.is_breakz_at(0) {
            return Err(self.scanner_error(
                "while scanning a block scalar",
                start,
                "did not find expected comment or line break",
            ));
        }
        if self.is_break_at(0) {
            self.cache(2)?;
            self.skip_line();
        }
        let mut end = self.mark;
        let mut indent: isize = 0;
        if increment > 0 {
            indent = if self.indent >= 0 {
                self.indent + increment
            } else {
                increment
            };
        }
        let [mut s, mut leading_break, mut trailing_breaks, blanks] = self.take_scratch();
        self.scan_block_scalar_breaks(&mut indent, &mut trailing_breaks, start, &mut end)?;
        self.cache(1)?;
        let mut leading_blank = false;
        while self.mark.column as isize == indent && !self.is_z_at(0) {
            let trailing_blank = self.is_blank_at(0);
            if !literal
                && !leading_blank
                && !trailing_blank
                && leading_break.first() == Some(&b'\n')
            {
                if trailing_breaks.is_empty() {
                    s.push(b' ');
                }
            } else {
                s.extend_from_slice(&leading_break);
            }
            leading_break.clear();
            s.extend_from_slice(&trailing_breaks);
            trailing_breaks.clear();
            leading_blank = self.is_blank_at(0);
            loop {
                let k = self.line_run(4);
                self.read_run(k, &mut s);
                if self.is_breakz_at(0) {
                    break;
                }
                self.read(&mut s);
                self.cache(1)?;
            }
            self.cache(2)?;
            self.read_line(&mut leading_break);
            self.scan_block_scalar_breaks(&mut indent, &mut trailing_breaks, start, &mut end)?;
        }
        if chomping != -1 {
            s.extend_from_slice(&leading_break);
        }
        if chomping == 1 {
            s.extend_from_slice(&trailing_breaks);
        }
        let style = if literal {
            ScalarStyle::Literal
        } else {
            ScalarStyle::Folded
        };
        let value = self.finish_scalar([s, leading_break, trailing_breaks, blanks]);
        Ok(Token {
            kind: TokenKind::Scalar { value, style },
            start,
            end,
        })
    }

    fn scan_block_scalar_breaks(
        &mut self,
        indent: &mut isize,
        breaks: &mut Vec<u8>,
        start: Mark,
        end: &mut Mark,
    ) -> Result<()> {
        *end = self.mark;
        let mut max_indent: isize = 0;
        loop {
            self.cache(1)?;
            while (*indent == 0 || (self.mark.column as isize) < *indent) && self.cur() == b' ' {
                self.skip();
                self.cache(1)?;
            }
            if self.mark.column as isize > max_indent {
                max_indent = self.mark.column as isize;
            }
            if (*indent == 0 || (self.mark.column as isize) < *indent) && self.cur() == b'\t' {
                return Err(self.scanner_error(
                    "while scanning a block scalar",
                    start,
                    "found a tab character where an indentation space is expected",
                ));
            }
            if !self.is_break_at(0) {
                break;
            }
            self.cache(2)?;
            self.read_line(breaks);
            *end = self.mark;
        }
        if *indent == 0 {
            *indent = max_indent;
            if *indent < self.indent + 1 {
                *indent = self.indent + 1;
            }
            if *indent < 1 {
                *indent = 1;
            }
        }
        Ok(())
    }

    fn scan_flow_scalar(&mut self, single: bool) -> Result<Token> {
        let start = self.mark;
        self.skip();
        let [mut s, mut leading_break, mut trailing_breaks, mut whitespaces] = self.take_scratch();
        loop {
            self.cache(4)?;
            if self.mark.column == 0
                && ((self.at(0) == b'-' && self.at(1) == b'-' && self.at(2) == b'-')
                    || (self.at(0) == b'.' && self.at(1) == b'.' && self.at(2) == b'.'))
                && self.is_blankz_at(3)
            {
                return Err(self.scanner_error(
                    "while scanning a quoted scalar",
                    start,
                    "found unexpected document indicator",
                ));
            }
            if self.is_z_at(0) {
                return Err(self.scanner_error(
                    "while scanning a quoted scalar",
                    start,
                    "found unexpected end of stream",
                ));
            }
            let mut leading_blanks = false;
            while !self.is_blankz_at(0) {
                let c = self.cur();
                if single && c == b'\'' && self.at(1) == b'\'' {
                    s.push(b'\'');
                    self.skip();
                    self.skip();
                } else if (single && c == b'\'') || (!single && c == b'"') {
                    // The closing quote.
                    break;
                } else if !single && c == b'\\' && self.is_break_at(1) {
                    self.cache(3)?;
                    self.skip();
                    self.skip_line();
                    leading_blanks = true;
                    break;
                } else if !single && c == b'\\' {
                    let mut code_length = 0usize;
                    match self.at(1) {
                        b'0' => s.push(0),
                        b'a' => s.push(0x07),
                        b'b' => s.push(0x08),
                        b't' | b'\t' => s.push(0x09),
                        b'n' => s.push(0x0A),
                        b'v' => s.push(0x0B),
                        b'f' => s.push(0x0C),
                        b'r' => s.push(0x0D),
                        b'e' => s.push(0x1B),
                        b' ' => s.push(b' '),
                        b'"' => s.push(b'"'),
                        b'\'' => s.push(b'\''),
                        b'\\' => s.push(b'\\'),
                        b'N' => s.extend_from_slice(&[0xC2, 0x85]),
                        b'_' => s.extend_from_slice(&[0xC2, 0xA0]),
                        b'L' => s.extend_from_slice(&[0xE2, 0x80, 0xA8]),
                        b'P' => s.extend_from_slice(&[0xE2, 0x80, 0xA9]),
                        b'x' => code_length = 2,
                        b'u' => code_length = 4,
                        b'U' => code_length = 8,
                        _ => {
                            return Err(self.scanner_error(
                                "while parsing a quoted scalar",
                                start,
                                "found unknown escape character",
                            ));
                        }
                    }
                    self.skip();
                    self.skip();
                    if code_length > 0 {
                        self.cache(code_length)?;
                        let mut value: u32 = 0;
                        for k in 0..code_length {
                            if !is_hex_byte(self.at(k)) {
                                return Err(self.scanner_error(
                                    "while parsing a quoted scalar",
                                    start,
                                    "did not find expected hexdecimal number",
                                ));
                            }
                            value = (value << 4) + hex_val(self.at(k));
                        }
                        let ch = match char::from_u32(value) {
                            Some(ch) => ch,
                            None => {
                                return Err(self.scanner_error(
                                    "while parsing a quoted scalar",
                                    start,
                                    "found invalid Unicode character escape code",
                                ));
                            }
                        };
                        let mut tmp = [0u8; 4];
                        s.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
                        for _ in 0..code_length {
                            self.skip();
                        }
                    }
                } else {
                    self.read(&mut s);
                }
                self.cache(2)?;
                let quote = if single { b'\'' } else { b'"' };
                let k = self.ascii_run(8, |b| b > b' ' && b < 0x7F && b != quote && b != b'\\');
                self.read_run(k, &mut s);
            }
            self.cache(1)?;
            if single {
                if self.cur() == b'\'' {
                    break;
                }
            } else if self.cur() == b'"' {
                break;
            }
            while self.is_blank_at(0) || self.is_break_at(0) {
                if self.is_blank_at(0) {
                    if !leading_blanks {
                        self.read(&mut whitespaces);
                    } else {
                        self.skip();
                    }
                } else {
                    self.cache(2)?;
                    if !leading_blanks {
                        whitespaces.clear();
                        self.read_line(&mut leading_break);
                        leading_blanks = true;
                    } else {
                        self.read_line(&mut trailing_breaks);
                    }
                }
                self.cache(1)?;
            }
            if leading_blanks {
                if leading_break.first() == Some(&b'\n') {
                    if trailing_breaks.is_empty() {
                        s.push(b' ');
                    } else {
                        s.extend_from_slice(&trailing_breaks);
                    }
                } else {
                    s.extend_from_slice(&leading_break);
                    s.extend_from_slice(&trailing_breaks);
                }
                trailing_breaks.clear();
                leading_break.clear();
            } else {
                s.extend_from_slice(&whitespaces);
                whitespaces.clear();
            }
        }
        self.skip();
        let end = self.mark;
        let style = if single {
            ScalarStyle::SingleQuoted
        } else {
            ScalarStyle::DoubleQuoted
        };
        let value = self.finish_scalar([s, leading_break, trailing_breaks, whitespaces]);
        Ok(Token {
            kind: TokenKind::Scalar { value, style },
            start,
            end,
        })
    }

    fn scan_plain_scalar(&mut self) -> Result<Token> {
        let [mut s, mut leading_break, mut trailing_breaks, mut whitespaces] = self.take_scratch();
        let mut leading_blanks = false;
        let indent = self.indent + 1;
        let start = self.mark;
        let mut end = self.mark;
        loop {
            self.cache(4)?;
            if self.mark.column == 0
                && ((self.at(0) == b'-' && self.at(1) == b'-' && self.at(2) == b'-')
                    || (self.at(0) == b'.' && self.at(1) == b'.' && self.at(2) == b'.'))
                && self.is_blankz_at(3)
            {
                break;
            }
            if self.cur() == b'#' {
                break;
            }
            while !self.is_blankz_at(0) {
                let c = self.cur();
                if (c == b':' && self.is_blankz_at(1))
                    || (self.flow_level > 0 && matches!(c, b',' | b'?' | b'[' | b']' | b'{' | b'}'))
                {
                    break;
                }
                if leading_blanks || !whitespaces.is_empty() {
                    if leading_blanks {
                        if leading_break.first() == Some(&b'\n') {
                            if trailing_breaks.is_empty() {
                                s.push(b' ');
                            } else {
                                s.extend_from_slice(&trailing_breaks);
                            }
                        } else {
                            s.extend_from_slice(&leading_break);
                            s.extend_from_slice(&trailing_breaks);
                        }
                        trailing_breaks.clear();
                        leading_break.clear();
                        leading_blanks = false;
                    } else {
                        s.extend_from_slice(&whitespaces);
                        whitespaces.clear();
                    }
                }
                self.read(&mut s);
                end = self.mark;
                self.cache(2)?;
                let flow = self.flow_level > 0;
                let k = self.ascii_run(8, |b| {
                    b > b' '
                        && b < 0x7F
                        && b != b':'
                        && !(flow && matches!(b, b',' | b'?' | b'[' | b']' | b'{' | b'}'))
                });
                if k > 0 {
                    self.read_run(k, &mut s);
                    end = self.mark;
                }
            }
            if !(self.is_blank_at(0) || self.is_break_at(0)) {
                break;
            }
            self.cache(1)?;
            while self.is_blank_at(0) || self.is_break_at(0) {
                if self.is_blank_at(0) {
                    if leading_blanks && (self.mark.column as isize) < indent && self.cur() == b'\t'
                    {
                        return Err(self.scanner_error(
                            "while scanning a plain scalar",
                            start,
                            "found a tab character that violates indentation",
                        ));
                    }
                    if !leading_blanks {
                        self.read(&mut whitespaces);
                    } else {
                        self.skip();
                    }
                } else {
                    self.cache(2)?;
                    if !leading_blanks {
                        whitespaces.clear();
                        self.read_line(&mut leading_break);
                        leading_blanks = true;
                    } else {
                        self.read_line(&mut trailing_breaks);
                    }
                }
                self.cache(1)?;
            }
            if self.flow_level == 0 && (self.mark.column as isize) < indent {
                break;
            }
        }
        if leading_blanks {
            self.simple_key_allowed = true;
        }
        let value = self.finish_scalar([s, leading_break, trailing_breaks, whitespaces]);
        Ok(Token {
            kind: TokenKind::Scalar {
                value,
                style: ScalarStyle::Plain,
            },
            start,
            end,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(input: &str) -> Vec<TokenKind> {
        let mut s = Scanner::new(input);
        let mut out = Vec::new();
        loop {
            let t = s.peek().expect("scan").clone();
            s.skip_token();
            let end = t.kind == TokenKind::StreamEnd;
            out.push(t.kind);
            if end {
                break;
            }
        }
        out
    }

    #[test]
    fn simple_mapping_tokens() {
        use TokenKind::*;
        let got = kinds("a: 1\n");
        assert_eq!(
            got,
            vec![
                StreamStart,
                BlockMappingStart,
                Key,
                Scalar {
                    value: "a".into(),
                    style: ScalarStyle::Plain
                },
                Value,
                Scalar {
                    value: "1".into(),
                    style: ScalarStyle::Plain
                },
                BlockEnd,
                StreamEnd
            ]
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_are_reader_errors() {
        let text = crate::template::gostr::from_bytes(b"a: 1\nb: \xc3x\n".to_vec());
        let mut s = Scanner::new(&text);
        let e = s.peek().expect_err("must fail");
        assert_eq!(e.stage, ErrorStage::Reader);
        assert_eq!(e.go_message(), "invalid trailing UTF-8 octet");
    }

    #[test]
    fn control_character_is_a_reader_error() {
        let mut s = Scanner::new("a: 1\nb: \u{1}\n");
        let e = s.peek().expect_err("must fail");
        assert_eq!(e.stage, ErrorStage::Reader);
        assert_eq!(e.go_message(), "control characters are not allowed");
    }
}
