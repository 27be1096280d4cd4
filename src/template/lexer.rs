//! The template lexer: splits source text into text runs and action tokens.
//!
//! It follows Go's `text/template/parse` lexer state by state, because parse error
//! texts (`unclosed action`, `bad number syntax: "1x"`) and the *line numbers* Go
//! reports depend on exactly when tokens are produced and which line each starts on.
//! Trim markers (`{{- ` and ` -}}`) are handled here: the trimmed whitespace never
//! reaches the parser, text tokens simply get shorter spans.

use std::marker::PhantomData;

/// Token types, in Go's order; everything after `Keyword` prints as `<word>` in
/// error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ItemType {
    Error,
    Bool,
    Char,
    CharConstant,
    Comment,
    Complex,
    Assign,
    Declare,
    Eof,
    Field,
    Identifier,
    LeftDelim,
    LeftParen,
    Number,
    Pipe,
    RawString,
    RightDelim,
    RightParen,
    Space,
    String,
    Text,
    Variable,
    Keyword,
    Block,
    Break,
    Continue,
    Dot,
    Define,
    Else,
    End,
    If,
    Nil,
    Range,
    Template,
    With,
}

/// One token: its type and where its text is in the source (see [`Item::val`]).
/// An error token's text is empty: its message is kept by the lexer
/// ([`Lexer::error_message`]).
///
/// Sixteen bytes of plain `Copy` data, so that the lexer returns a token in two
/// registers and the parser copies its three-token lookahead in words. A token that
/// held its text as a `&str` was 40 bytes: it went through memory on every return,
/// and reading it back right after the lexer wrote it stalled the processor (a
/// failed store-to-load forward) on about a tenth of all parse time.
#[derive(Clone, Copy, Debug)]
pub struct Item<'a> {
    /// The offset in the low half, the text's length in the high half. Two words
    /// and nothing else, so that Rust passes a token as a pair of scalars.
    span: u64,
    /// The line in the low half, the type in the high half.
    kind: u64,
    src: PhantomData<&'a str>,
}

const _: () = assert!(std::mem::size_of::<Item<'static>>() == 16);

/// Every [`ItemType`], in declaration order (index = discriminant).
const ITEM_TYPES: [ItemType; 35] = [
    ItemType::Error,
    ItemType::Bool,
    ItemType::Char,
    ItemType::CharConstant,
    ItemType::Comment,
    ItemType::Complex,
    ItemType::Assign,
    ItemType::Declare,
    ItemType::Eof,
    ItemType::Field,
    ItemType::Identifier,
    ItemType::LeftDelim,
    ItemType::LeftParen,
    ItemType::Number,
    ItemType::Pipe,
    ItemType::RawString,
    ItemType::RightDelim,
    ItemType::RightParen,
    ItemType::Space,
    ItemType::String,
    ItemType::Text,
    ItemType::Variable,
    ItemType::Keyword,
    ItemType::Block,
    ItemType::Break,
    ItemType::Continue,
    ItemType::Dot,
    ItemType::Define,
    ItemType::Else,
    ItemType::End,
    ItemType::If,
    ItemType::Nil,
    ItemType::Range,
    ItemType::Template,
    ItemType::With,
];

// A type added to `ItemType` must be added to the table too.
const _: () = assert!(ITEM_TYPES.len() == ItemType::With as usize + 1);

impl<'a> Item<'a> {
    /// A token of type `typ` over `pos..pos + len` of the source, starting on `line`.
    /// Sources are far below 4 GiB (they are read whole into memory); past that,
    /// positions saturate rather than wrap.
    pub fn new(typ: ItemType, pos: usize, len: usize, line: usize) -> Item<'a> {
        let narrow = |n: usize| u64::from(super::ast::pos32(n));
        Item {
            span: narrow(pos) | narrow(len) << 32,
            kind: narrow(line) | (typ as u64) << 32,
            src: PhantomData,
        }
    }

    /// The token's two words, for a holder that keeps them apart (see the
    /// parser's look-ahead).
    pub(crate) fn raw(self) -> (u64, u64) {
        (self.span, self.kind)
    }

    /// A token from the words [`Item::raw`] gave.
    pub(crate) fn from_raw(span: u64, kind: u64) -> Item<'a> {
        Item {
            span,
            kind,
            src: PhantomData,
        }
    }

    /// The token's type.
    pub fn typ(&self) -> ItemType {
        ITEM_TYPES
            .get((self.kind >> 32) as usize)
            .copied()
            .unwrap_or(ItemType::Error)
    }

    fn len(&self) -> usize {
        (self.span >> 32) as usize
    }

    /// Byte offset of the token in the source.
    pub fn pos(&self) -> usize {
        (self.span & 0xFFFF_FFFF) as usize
    }

    /// 1-based line the token starts on.
    pub fn line(&self) -> usize {
        (self.kind & 0xFFFF_FFFF) as usize
    }

    /// The token's text, `src` being the text the lexer ran over.
    pub fn val(&self, src: &'a str) -> &'a str {
        let start = self.pos();
        src.get(start..start + self.len()).unwrap_or("")
    }

    /// Go's `item.String()`, used in `unexpected X in Y` messages; `error` is the
    /// lexer's message, printed for an error token.
    pub fn describe(&self, src: &'a str, error: &str) -> String {
        let val = self.val(src);
        match self.typ() {
            ItemType::Eof => "EOF".to_string(),
            ItemType::Error => error.to_string(),
            t if t > ItemType::Keyword => format!("<{val}>"),
            _ => {
                if val.chars().count() > 10 {
                    let head: String = val.chars().take(10).collect();
                    format!("{}...", crate::template::fmt::quote(&head))
                } else {
                    crate::template::fmt::quote(val)
                }
            }
        }
    }
}

/// The action keywords; everything else alphanumeric is an identifier.
const KEYWORDS: [(&str, ItemType); 12] = [
    (".", ItemType::Dot),
    ("block", ItemType::Block),
    ("break", ItemType::Break),
    ("continue", ItemType::Continue),
    ("define", ItemType::Define),
    ("else", ItemType::Else),
    ("end", ItemType::End),
    ("if", ItemType::If),
    ("range", ItemType::Range),
    ("nil", ItemType::Nil),
    ("template", ItemType::Template),
    ("with", ItemType::With),
];

/// The first bytes of [`KEYWORDS`]: most words are function names, and one byte
/// rules nearly all of them out before any string comparison.
static KEYWORD_FIRST: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < KEYWORDS.len() {
        t[KEYWORDS[i].0.as_bytes()[0] as usize] = true;
        i += 1;
    }
    t
};

fn keyword(word: &str) -> Option<ItemType> {
    if !KEYWORD_FIRST[*word.as_bytes().first()? as usize] {
        return None;
    }
    KEYWORDS.iter().find(|(k, _)| *k == word).map(|(_, t)| *t)
}

const LEFT_COMMENT: &str = "/*";
const RIGHT_COMMENT: &str = "*/";
/// Trim marker plus the space that must accompany it.
const TRIM_MARKER_LEN: usize = 2;

#[derive(Clone, Copy)]
enum State {
    Text,
    LeftDelim,
    Comment,
    RightDelim,
    InsideAction,
    Space,
    Identifier,
    Field,
    Variable,
    Char,
    Number,
    Quote,
    RawQuote,
}

/// Outcome of one state function: continue with another state, or stop because an
/// item is ready.
enum Step<'a> {
    Next(State),
    Emit(Item<'a>),
}

pub struct Lexer<'a> {
    input: &'a str,
    left_delim: &'a str,
    /// Searcher for `left_delim`, built once: building one per text run cost more
    /// than the search itself.
    left_finder: memchr::memmem::Finder<'a>,
    right_delim: &'a str,
    pos: usize,
    start: usize,
    at_eof: bool,
    paren_depth: usize,
    line: usize,
    start_line: usize,
    inside_action: bool,
    pub break_ok: bool,
    pub continue_ok: bool,
    /// Set once an error token has been produced; afterwards only EOF follows.
    dead: bool,
    /// The message of the error token, once there is one.
    error: String,
}

pub(crate) fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

pub(crate) fn is_alnum(c: char) -> bool {
    c == '_' || c.is_alphabetic() || c.is_numeric()
}

fn has_left_trim_marker(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && b[0] == b'-' && is_space(b[1] as char)
}

fn has_right_trim_marker(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && is_space(b[0] as char) && b[1] == b'-'
}

fn right_trim_len(s: &str) -> usize {
    s.len() - s.trim_end_matches(is_space).len()
}

fn left_trim_len(s: &str) -> usize {
    s.len() - s.trim_start_matches(is_space).len()
}

/// Go's `%#U` formatting of a rune: `U+0023 '#'`.
fn sharp_u(c: Option<char>) -> String {
    match c {
        None => "U+FFFFFFFFFFFFFFFF".to_string(),
        Some(c) => {
            let code = c as u32;
            let hex = format!("U+{code:04X}");
            if is_printable(c) {
                format!("{hex} '{c}'")
            } else {
                hex
            }
        }
    }
}

/// An approximation of Go's `strconv.IsPrint` sufficient for error texts.
fn is_printable(c: char) -> bool {
    !c.is_control() && c != '\u{FFFD}' && !matches!(c as u32, 0x2028 | 0x2029 | 0xAD)
}

impl<'a> Lexer<'a> {
    pub fn new(input: &'a str, left_delim: &'a str, right_delim: &'a str) -> Lexer<'a> {
        Lexer {
            input,
            left_delim,
            left_finder: memchr::memmem::Finder::new(left_delim.as_bytes()),
            right_delim,
            pos: 0,
            start: 0,
            at_eof: false,
            paren_depth: 0,
            line: 1,
            start_line: 1,
            inside_action: false,
            break_ok: true,
            continue_ok: true,
            dead: false,
            error: String::new(),
        }
    }

    /// The message of the error token produced (empty before any).
    pub fn error_message(&self) -> &str {
        &self.error
    }

    /// The action delimiters this lexer uses.
    pub fn delims(&self) -> (&'a str, &'a str) {
        (self.left_delim, self.right_delim)
    }

    fn rest(&self) -> &'a str {
        self.input.get(self.pos..).unwrap_or("")
    }

    fn next(&mut self) -> Option<char> {
        // Templates are mostly ASCII: take one byte without decoding when it is one.
        if let Some(&b) = self.input.as_bytes().get(self.pos) {
            if b.is_ascii() {
                self.pos += 1;
                if b == b'\n' {
                    self.line += 1;
                }
                return Some(b as char);
            }
        }
        match self.rest().chars().next() {
            None => {
                self.at_eof = true;
                None
            }
            Some(c) => {
                self.pos += c.len_utf8();
                if c == '\n' {
                    self.line += 1;
                }
                Some(c)
            }
        }
    }

    fn peek(&mut self) -> Option<char> {
        match self.input.as_bytes().get(self.pos) {
            Some(&b) if b.is_ascii() => Some(b as char),
            _ => self.rest().chars().next(),
        }
    }

    fn backup(&mut self) {
        if !self.at_eof && self.pos > 0 {
            if let Some(c) = self.input[..self.pos].chars().next_back() {
                self.pos -= c.len_utf8();
                if c == '\n' {
                    self.line -= 1;
                }
            }
        }
    }

    fn this_item(&mut self, typ: ItemType) -> Item<'a> {
        let item = Item::new(typ, self.start, self.pos - self.start, self.start_line);
        self.start = self.pos;
        self.start_line = self.line;
        item
    }

    fn emit(&mut self, typ: ItemType) -> Step<'a> {
        Step::Emit(self.this_item(typ))
    }

    fn emit_item(&mut self, item: Item<'a>) -> Step<'a> {
        Step::Emit(item)
    }

    fn ignore(&mut self) {
        self.line += count_newlines(&self.input[self.start..self.pos]);
        self.start = self.pos;
        self.start_line = self.line;
    }

    fn accept(&mut self, valid: &str) -> bool {
        match self.next() {
            Some(c) if valid.contains(c) => true,
            _ => {
                self.backup();
                false
            }
        }
    }

    fn accept_run(&mut self, valid: &str) {
        while let Some(c) = self.next() {
            if !valid.contains(c) {
                break;
            }
        }
        self.backup();
    }

    fn errorf(&mut self, msg: String) -> Step<'a> {
        self.error = msg;
        self.dead = true;
        Step::Emit(Item::new(ItemType::Error, self.start, 0, self.start_line))
    }

    /// The next token.
    pub fn next_item(&mut self) -> Item<'a> {
        if self.dead {
            return Item::new(ItemType::Eof, 0, 0, self.start_line);
        }
        let mut state = if self.inside_action {
            State::InsideAction
        } else {
            State::Text
        };
        loop {
            let step = match state {
                State::Text => self.lex_text(),
                State::LeftDelim => self.lex_left_delim(),
                State::Comment => self.lex_comment(),
                State::RightDelim => self.lex_right_delim(),
                State::InsideAction => self.lex_inside_action(),
                State::Space => self.lex_space(),
                State::Identifier => self.lex_identifier(),
                State::Field => self.lex_field_or_variable(ItemType::Field),
                State::Variable => self.lex_variable(),
                State::Char => self.lex_char(),
                State::Number => self.lex_number(),
                State::Quote => self.lex_quote(),
                State::RawQuote => self.lex_raw_quote(),
            };
            match step {
                Step::Next(s) => state = s,
                Step::Emit(item) => return item,
            }
        }
    }

    fn lex_text(&mut self) -> Step<'a> {
        if let Some(x) = self.left_finder.find(self.rest().as_bytes()) {
            if x > 0 {
                self.pos += x;
                let delim_end = self.pos + self.left_delim.len();
                let mut trim = 0;
                if has_left_trim_marker(&self.input[delim_end..]) {
                    trim = right_trim_len(&self.input[self.start..self.pos]);
                }
                self.pos -= trim;
                self.line += count_newlines(&self.input[self.start..self.pos]);
                let item = self.this_item(ItemType::Text);
                self.pos += trim;
                self.ignore();
                if item.len() > 0 {
                    return self.emit_item(item);
                }
            }
            return Step::Next(State::LeftDelim);
        }
        self.pos = self.input.len();
        if self.pos > self.start {
            self.line += count_newlines(&self.input[self.start..self.pos]);
            return self.emit(ItemType::Text);
        }
        self.emit(ItemType::Eof)
    }

    fn at_right_delim(&self) -> (bool, bool) {
        // Bytes, not `str` slices: this runs before every token of an action, and
        // slicing a `str` checks character boundaries each time. The delimiter and
        // the trim marker are whole characters, so a byte match is a `str` match.
        let rest = self.input.as_bytes().get(self.pos..).unwrap_or_default();
        let delim = self.right_delim.as_bytes();
        if rest.len() >= TRIM_MARKER_LEN
            && rest[1] == b'-'
            && is_space(rest[0] as char)
            && starts_with_delim(&rest[TRIM_MARKER_LEN..], delim)
        {
            return (true, true);
        }
        (starts_with_delim(rest, delim), false)
    }

    fn lex_left_delim(&mut self) -> Step<'a> {
        self.pos += self.left_delim.len();
        let trim = has_left_trim_marker(self.rest());
        let after_marker = if trim { TRIM_MARKER_LEN } else { 0 };
        if self.input[self.pos + after_marker..].starts_with(LEFT_COMMENT) {
            self.pos += after_marker;
            self.ignore();
            return Step::Next(State::Comment);
        }
        let item = self.this_item(ItemType::LeftDelim);
        self.inside_action = true;
        self.pos += after_marker;
        self.ignore();
        self.paren_depth = 0;
        self.emit_item(item)
    }

    fn lex_comment(&mut self) -> Step<'a> {
        self.pos += LEFT_COMMENT.len();
        let Some(x) = self.rest().find(RIGHT_COMMENT) else {
            return self.errorf("unclosed comment".to_string());
        };
        self.pos += x + RIGHT_COMMENT.len();
        let (delim, trim) = self.at_right_delim();
        if !delim {
            return self.errorf("comment ends before closing delimiter".to_string());
        }
        self.line += count_newlines(&self.input[self.start..self.pos]);
        // Comments are not emitted: the parser never needs them.
        self.start = self.pos;
        self.start_line = self.line;
        if trim {
            self.pos += TRIM_MARKER_LEN;
        }
        self.pos += self.right_delim.len();
        if trim {
            self.pos += left_trim_len(self.rest());
        }
        self.ignore();
        Step::Next(State::Text)
    }

    fn lex_right_delim(&mut self) -> Step<'a> {
        let (_, trim) = self.at_right_delim();
        if trim {
            self.pos += TRIM_MARKER_LEN;
            self.ignore();
        }
        self.pos += self.right_delim.len();
        let item = self.this_item(ItemType::RightDelim);
        if trim {
            self.pos += left_trim_len(self.rest());
            self.ignore();
        }
        self.inside_action = false;
        self.emit_item(item)
    }

    fn lex_inside_action(&mut self) -> Step<'a> {
        let (delim, _) = self.at_right_delim();
        if delim {
            if self.paren_depth == 0 {
                return Step::Next(State::RightDelim);
            }
            return self.errorf("unclosed left paren".to_string());
        }
        let Some(r) = self.next() else {
            return self.errorf("unclosed action".to_string());
        };
        match r {
            c if is_space(c) => {
                self.backup();
                Step::Next(State::Space)
            }
            '=' => self.emit(ItemType::Assign),
            ':' => {
                if self.next() != Some('=') {
                    return self.errorf("expected :=".to_string());
                }
                self.emit(ItemType::Declare)
            }
            '|' => self.emit(ItemType::Pipe),
            '"' => Step::Next(State::Quote),
            '`' => Step::Next(State::RawQuote),
            '$' => Step::Next(State::Variable),
            '\'' => Step::Next(State::Char),
            '.' => {
                if let Some(&b) = self.input.as_bytes().get(self.pos) {
                    if !b.is_ascii_digit() {
                        return Step::Next(State::Field);
                    }
                }
                self.backup();
                Step::Next(State::Number)
            }
            '+' | '-' | '0'..='9' => {
                self.backup();
                Step::Next(State::Number)
            }
            c if is_alnum(c) => {
                self.backup();
                Step::Next(State::Identifier)
            }
            '(' => {
                self.paren_depth += 1;
                self.emit(ItemType::LeftParen)
            }
            ')' => {
                if self.paren_depth == 0 {
                    return self.errorf("unexpected right paren".to_string());
                }
                self.paren_depth -= 1;
                self.emit(ItemType::RightParen)
            }
            c if c.is_ascii() && !c.is_ascii_control() => self.emit(ItemType::Char),
            c => self.errorf(format!(
                "unrecognized character in action: {}",
                sharp_u(Some(c))
            )),
        }
    }

    fn lex_space(&mut self) -> Step<'a> {
        // Spaces are ASCII, so a byte scan sees exactly what `peek`/`next` would.
        let bytes = self.input.as_bytes();
        let begin = self.pos;
        while let Some(&b) = bytes.get(self.pos) {
            if !matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
                break;
            }
            if b == b'\n' {
                self.line += 1;
            }
            self.pos += 1;
        }
        let num_spaces = self.pos - begin;
        // A trim-marked right delimiter starts with a space: leave it for the delimiter.
        let from = self.pos - 1;
        if has_right_trim_marker(&self.input[from..])
            && starts_with_delim(
                &self.input.as_bytes()[from + TRIM_MARKER_LEN..],
                self.right_delim.as_bytes(),
            )
        {
            self.backup();
            if num_spaces == 1 {
                return Step::Next(State::RightDelim);
            }
        }
        self.emit(ItemType::Space)
    }

    /// Consumes alphanumeric characters and returns the one that stopped the run
    /// (`None` at the end), left unconsumed: Go's `next` loop followed by `backup`,
    /// with ASCII bytes taken directly.
    fn scan_alnum(&mut self) -> Option<char> {
        let bytes = self.input.as_bytes();
        loop {
            let run = bytes
                .get(self.pos..)
                .unwrap_or_default()
                .iter()
                .take_while(|&&b| IDENT_BYTE[b as usize])
                .count();
            self.pos += run;
            match bytes.get(self.pos) {
                Some(&b) if b.is_ascii() => return Some(b as char),
                _ => {
                    let r = self.next();
                    match r {
                        Some(c) if is_alnum(c) => {}
                        _ => {
                            self.backup();
                            return r;
                        }
                    }
                }
            }
        }
    }

    fn lex_identifier(&mut self) -> Step<'a> {
        let r = self.scan_alnum();
        let word = &self.input[self.start..self.pos];
        if !self.at_terminator() {
            return self.errorf(format!("bad character {}", sharp_u(r)));
        }
        if let Some(k) = keyword(word) {
            if (k == ItemType::Break && !self.break_ok)
                || (k == ItemType::Continue && !self.continue_ok)
            {
                return self.emit(ItemType::Identifier);
            }
            return self.emit(k);
        }
        if word.starts_with('.') {
            return self.emit(ItemType::Field);
        }
        if word == "true" || word == "false" {
            return self.emit(ItemType::Bool);
        }
        self.emit(ItemType::Identifier)
    }

    fn lex_variable(&mut self) -> Step<'a> {
        if self.at_terminator() {
            return self.emit(ItemType::Variable);
        }
        self.lex_field_or_variable(ItemType::Variable)
    }

    fn lex_field_or_variable(&mut self, typ: ItemType) -> Step<'a> {
        if self.at_terminator() {
            if typ == ItemType::Variable {
                return self.emit(ItemType::Variable);
            }
            return self.emit(ItemType::Dot);
        }
        let r = self.scan_alnum();
        if !self.at_terminator() {
            return self.errorf(format!("bad character {}", sharp_u(r)));
        }
        self.emit(typ)
    }

    fn at_terminator(&mut self) -> bool {
        // Every terminator and the delimiter's first byte decide on one byte; the
        // delimiter itself is compared as bytes (it is whole characters).
        match self.input.as_bytes().get(self.pos) {
            None => true,
            Some(b' ' | b'\t' | b'\r' | b'\n' | b'.' | b',' | b'|' | b':' | b')' | b'(') => true,
            Some(_) => starts_with_delim(
                &self.input.as_bytes()[self.pos..],
                self.right_delim.as_bytes(),
            ),
        }
    }

    fn lex_char(&mut self) -> Step<'a> {
        loop {
            match self.next() {
                Some('\\') => match self.next() {
                    Some(c) if c != '\n' => {}
                    _ => return self.errorf("unterminated character constant".to_string()),
                },
                None | Some('\n') => {
                    return self.errorf("unterminated character constant".to_string())
                }
                Some('\'') => break,
                _ => {}
            }
        }
        self.emit(ItemType::CharConstant)
    }

    fn lex_number(&mut self) -> Step<'a> {
        if !self.scan_number() {
            let text = self.input[self.start..self.pos].to_string();
            return self.errorf(format!(
                "bad number syntax: {}",
                crate::template::fmt::quote(&text)
            ));
        }
        if let Some('+' | '-') = self.peek() {
            // Complex constant such as 1+2i: no spaces, must end in 'i'.
            if !self.scan_number() || !self.input[..self.pos].ends_with('i') {
                let text = self.input[self.start..self.pos].to_string();
                return self.errorf(format!(
                    "bad number syntax: {}",
                    crate::template::fmt::quote(&text)
                ));
            }
            return self.emit(ItemType::Complex);
        }
        self.emit(ItemType::Number)
    }

    fn scan_number(&mut self) -> bool {
        self.accept("+-");
        let mut digits = "0123456789_";
        if self.accept("0") {
            if self.accept("xX") {
                digits = "0123456789abcdefABCDEF_";
            } else if self.accept("oO") {
                digits = "01234567_";
            } else if self.accept("bB") {
                digits = "01_";
            }
        }
        self.accept_run(digits);
        if self.accept(".") {
            self.accept_run(digits);
        }
        if digits.len() == 11 && self.accept("eE") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        if digits.len() == 23 && self.accept("pP") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        self.accept("i");
        if let Some(c) = self.peek() {
            if is_alnum(c) {
                self.next();
                return false;
            }
        }
        true
    }

    fn lex_quote(&mut self) -> Step<'a> {
        loop {
            match self.next() {
                Some('\\') => match self.next() {
                    Some(c) if c != '\n' => {}
                    _ => return self.errorf("unterminated quoted string".to_string()),
                },
                None | Some('\n') => return self.errorf("unterminated quoted string".to_string()),
                Some('"') => break,
                _ => {}
            }
        }
        self.emit(ItemType::String)
    }

    fn lex_raw_quote(&mut self) -> Step<'a> {
        loop {
            match self.next() {
                None => return self.errorf("unterminated raw quoted string".to_string()),
                Some('`') => break,
                _ => {}
            }
        }
        self.emit(ItemType::RawString)
    }
}

/// The ASCII bytes of an identifier run (`_`, letters, digits); other letters and
/// digits are not ASCII and take the `char` path.
static IDENT_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    t
};

/// `text.starts_with(delim)`, deciding on the first byte before comparing the rest:
/// the check runs at nearly every token, and the delimiter's length is only known
/// at run time, so the full comparison is a `memcmp` call.
fn starts_with_delim(text: &[u8], delim: &[u8]) -> bool {
    match (text.first(), delim.first()) {
        (Some(a), Some(b)) if a != b => false,
        _ => text.starts_with(delim),
    }
}

/// Line breaks in `s` (the lexer counts lines over every text it passes).
fn count_newlines(s: &str) -> usize {
    memchr::memchr_iter(b'\n', s.as_bytes()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(ItemType, String)> {
        kinds_with(src, "{{", "}}")
    }

    fn kinds_with(src: &str, left: &str, right: &str) -> Vec<(ItemType, String)> {
        let mut l = Lexer::new(src, left, right);
        let mut out = Vec::new();
        loop {
            let it = l.next_item();
            let done = matches!(it.typ(), ItemType::Eof | ItemType::Error);
            let val = if it.typ() == ItemType::Error {
                l.error_message()
            } else {
                it.val(src)
            };
            out.push((it.typ(), val.to_string()));
            if done {
                break;
            }
        }
        out
    }

    #[test]
    fn item_types_table_is_in_discriminant_order() {
        for (i, t) in ITEM_TYPES.iter().enumerate() {
            assert_eq!(*t as usize, i, "{t:?}");
            let item = Item::new(*t, 7, 3, 2);
            assert_eq!((item.typ(), item.pos(), item.line()), (*t, 7, 2));
        }
    }

    #[test]
    fn trims_and_tokens() {
        let k = kinds("a  {{- .x | f 1 -}}  b");
        let types: Vec<_> = k.iter().map(|x| x.0).collect();
        assert_eq!(
            types,
            vec![
                ItemType::Text,
                ItemType::LeftDelim,
                ItemType::Field,
                ItemType::Space,
                ItemType::Pipe,
                ItemType::Space,
                ItemType::Identifier,
                ItemType::Space,
                ItemType::Number,
                ItemType::RightDelim,
                ItemType::Text,
                ItemType::Eof
            ]
        );
        assert_eq!(k[0].1, "a");
        assert_eq!(k[10].1, "b");
    }

    #[test]
    fn minus_number_is_not_trim() {
        let k = kinds("{{-3}}");
        assert_eq!(k[1], (ItemType::Number, "-3".to_string()));
    }

    #[test]
    fn errors() {
        assert_eq!(
            kinds("{{ 1x }}")
                .last()
                .map(|x| x.1.clone())
                .unwrap_or_default(),
            "bad number syntax: \"1x\""
        );
        assert_eq!(kinds("{{ \"abc").last().map(|x| x.0), Some(ItemType::Error));
        assert_eq!(
            kinds("{{ ").last().map(|x| x.1.clone()).unwrap_or_default(),
            "unclosed action"
        );
    }

    /// The byte-level fast paths (delimiter, terminator, identifier runs, keyword
    /// filter) must see what the character-level code saw.
    #[test]
    fn fast_paths_agree_with_characters() {
        let pairs = |k: Vec<(ItemType, String)>| -> Vec<(ItemType, String)> {
            k.into_iter().filter(|x| x.0 != ItemType::Space).collect()
        };
        let k = pairs(kinds("{{ if .größe }}{{ else }}{{ end }}"));
        assert_eq!(k[1], (ItemType::If, "if".to_string()));
        assert_eq!(k[2], (ItemType::Field, ".größe".to_string()));
        assert_eq!(k[5], (ItemType::Else, "else".to_string()));
        assert_eq!(k[8], (ItemType::End, "end".to_string()));
        let k = pairs(kinds("{{ range $i := .l }}{{ ifx nil }}{{ endx }}{{end}}"));
        let types: Vec<_> = k.iter().map(|x| x.0).collect();
        assert_eq!(
            &types[..6],
            &[
                ItemType::LeftDelim,
                ItemType::Range,
                ItemType::Variable,
                ItemType::Declare,
                ItemType::Field,
                ItemType::RightDelim
            ]
        );
        assert_eq!(k[7], (ItemType::Identifier, "ifx".to_string()));
        assert_eq!(k[8], (ItemType::Nil, "nil".to_string()));
        assert_eq!(k[11], (ItemType::Identifier, "endx".to_string()));
        // Other delimiters, with trim markers on both sides and a field that ends
        // right at the delimiter.
        let k = kinds_with("a \n[[- .x -]] b [[.y]]]", "[[", "]]");
        let types: Vec<_> = k.iter().map(|x| x.0).collect();
        assert_eq!(
            types,
            vec![
                ItemType::Text,
                ItemType::LeftDelim,
                ItemType::Field,
                ItemType::RightDelim,
                ItemType::Text,
                ItemType::LeftDelim,
                ItemType::Field,
                ItemType::RightDelim,
                ItemType::Text,
                ItemType::Eof
            ]
        );
        assert_eq!(k[0].1, "a");
        assert_eq!(k[4].1, "b ");
        assert_eq!(k[6].1, ".y");
        assert_eq!(k[8].1, "]");
        // A character that is neither a terminator nor the delimiter stops a field.
        assert_eq!(
            kinds("{{ .a}x }}")
                .last()
                .map(|x| x.1.clone())
                .unwrap_or_default(),
            "bad character U+007D '}'"
        );
    }
}
