//! The YAML emitter: libyaml's emitter state machine as go-yaml v2 drives it
//! (2-space indent, width 80, Unicode output, `\n` breaks, no anchors or tags).
//!
//! Byte identity with `toYaml` depends on its small decisions: which scalar style a
//! string can take (`analyze_scalar` / `select_scalar_style`), where a long line is
//! folded (a space is turned into a break only once the column is *past* 80), when a
//! key needs the `? ` form (multi-line or longer than 128 bytes), how block scalar
//! headers get `|-`, `|+` and indentation hints, and the compact sequence layout
//! under a mapping key.

use super::scanner::ScalarStyle;

/// The events yaml.v2's encoder emits (all implicit, untagged).
#[derive(Clone, Debug, PartialEq)]
pub enum Ev {
    StreamStart,
    StreamEnd,
    DocStart,
    DocEnd,
    Scalar { value: String, style: ScalarStyle },
    SeqStart { flow: bool },
    SeqEnd,
    MapStart { flow: bool },
    MapEnd,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    StreamStart,
    FirstDocumentStart,
    DocumentStart,
    DocumentContent,
    DocumentEnd,
    FlowSequenceFirstItem,
    FlowSequenceItem,
    FlowMappingFirstKey,
    FlowMappingKey,
    FlowMappingSimpleValue,
    FlowMappingValue,
    BlockSequenceFirstItem,
    BlockSequenceItem,
    BlockMappingFirstKey,
    BlockMappingKey,
    BlockMappingSimpleValue,
    BlockMappingValue,
    End,
}

#[derive(Default, Clone, Copy)]
struct ScalarAnalysis {
    multiline: bool,
    flow_plain_allowed: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

/// An emitter error (go-yaml reports it as `yaml: <problem>`).
#[derive(Clone, Debug)]
pub struct EmitError(pub String);

pub struct Emitter<'e> {
    events: &'e [Ev],
    head: usize,
    out: String,
    state: State,
    states: Vec<State>,
    indent: isize,
    indents: Vec<isize>,
    flow_level: usize,
    root_context: bool,
    sequence_context: bool,
    mapping_context: bool,
    simple_key_context: bool,
    column: usize,
    whitespace: bool,
    indention: bool,
    open_ended: bool,
    best_indent: isize,
    best_width: usize,
    scalar: ScalarAnalysis,
    scalar_value: String,
    scalar_style: ScalarStyle,
    /// yaml.v3's variant (Helm 4's `toYamlPretty`): regular indentation, sequences
    /// indented under their key, `put_break` owning the indentation flag, tabs
    /// allowed in block scalars.
    v3: bool,
}

// ---- byte classes over a value (0 past the end, like libyaml's NUL-padded view) ----

fn b(v: &[u8], i: usize) -> u8 {
    v.get(i).copied().unwrap_or(0)
}

fn width(c: u8) -> usize {
    if c & 0x80 == 0 {
        1
    } else if c & 0xE0 == 0xC0 {
        2
    } else if c & 0xF0 == 0xE0 {
        3
    } else if c & 0xF8 == 0xF0 {
        4
    } else {
        1
    }
}

fn is_space(v: &[u8], i: usize) -> bool {
    b(v, i) == b' '
}

fn is_blank(v: &[u8], i: usize) -> bool {
    b(v, i) == b' ' || b(v, i) == b'\t'
}

fn is_break(v: &[u8], i: usize) -> bool {
    let c = b(v, i);
    c == b'\r'
        || c == b'\n'
        || (c == 0xC2 && b(v, i + 1) == 0x85)
        || (c == 0xE2 && b(v, i + 1) == 0x80 && (b(v, i + 2) == 0xA8 || b(v, i + 2) == 0xA9))
}

fn is_blankz(v: &[u8], i: usize) -> bool {
    is_blank(v, i) || is_break(v, i) || b(v, i) == 0
}

fn is_printable(v: &[u8], i: usize) -> bool {
    let c = b(v, i);
    let c1 = b(v, i + 1);
    let c2 = b(v, i + 2);
    c == 0x0A
        || (0x20..=0x7E).contains(&c)
        || (c == 0xC2 && c1 >= 0xA0)
        || (c > 0xC2 && c < 0xED)
        || (c == 0xED && c1 < 0xA0)
        || c == 0xEE
        || (c == 0xEF && !(c1 == 0xBB && c2 == 0xBF) && !(c1 == 0xBF && (c2 == 0xBE || c2 == 0xBF)))
}

/// libyaml checks for a byte order mark at the *start of the value*, whatever the
/// current position (so a value starting with U+FEFF is escaped entirely).
fn starts_with_bom(v: &[u8]) -> bool {
    b(v, 0) == 0xEF && b(v, 1) == 0xBB && b(v, 2) == 0xBF
}

impl<'e> Emitter<'e> {
    pub fn new(events: &'e [Ev]) -> Emitter<'e> {
        Emitter {
            events,
            head: 0,
            out: String::new(),
            state: State::StreamStart,
            states: Vec::new(),
            indent: -1,
            indents: Vec::new(),
            flow_level: 0,
            root_context: false,
            sequence_context: false,
            mapping_context: false,
            simple_key_context: false,
            column: 0,
            whitespace: true,
            indention: true,
            open_ended: false,
            best_indent: 2,
            best_width: 80,
            scalar: ScalarAnalysis::default(),
            scalar_value: String::new(),
            scalar_style: ScalarStyle::Plain,
            v3: false,
        }
    }

    /// An emitter behaving like yaml.v3's with the given indentation.
    pub fn new_v3(events: &'e [Ev], indent: isize) -> Emitter<'e> {
        let mut e = Emitter::new(events);
        e.v3 = true;
        e.best_indent = indent;
        // yaml.v3 never folds long lines.
        e.best_width = usize::MAX;
        e
    }

    /// Emits every event and returns the text.
    pub fn run(mut self) -> Result<String, EmitError> {
        while self.head < self.events.len() {
            self.analyze_event();
            self.state_machine()?;
            self.head += 1;
        }
        Ok(self.out)
    }

    fn event(&self) -> &'e Ev {
        &self.events[self.head]
    }

    fn pop_state(&mut self) {
        self.state = self.states.pop().unwrap_or(State::End);
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    // ---- output primitives --------------------------------------------------------

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
        if self.v3 {
            self.indention = true;
        }
    }

    /// Copies one character of `v` at `*i`.
    fn write(&mut self, v: &[u8], i: &mut usize) {
        let w = width(v[*i]).min(v.len() - *i);
        self.out
            .push_str(std::str::from_utf8(&v[*i..*i + w]).unwrap_or("\u{FFFD}"));
        self.column += 1;
        *i += w;
    }

    fn write_all(&mut self, s: &str) {
        let v = s.as_bytes();
        let mut i = 0;
        while i < v.len() {
            self.write(v, &mut i);
        }
    }

    fn write_break(&mut self, v: &[u8], i: &mut usize) {
        if v[*i] == b'\n' {
            self.put_break();
            *i += 1;
        } else {
            self.write(v, i);
            self.column = 0;
            if self.v3 {
                self.indention = true;
            }
        }
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        if !self.v3 {
            self.indention = true;
        }
    }

    fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        self.write_all(indicator);
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
        self.open_ended = false;
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { self.best_indent } else { 0 };
        } else if !indentless {
            if !self.v3 {
                self.indent += self.best_indent;
            } else if self.states.last() == Some(&State::BlockSequenceItem) {
                // Inside a sequence the first level only skips the "- " indicator.
                self.indent += 2;
            } else {
                // Everything else snaps to a multiple of the indentation.
                self.indent =
                    self.best_indent * ((self.indent + self.best_indent) / self.best_indent);
            }
        }
    }

    // ---- state machine ------------------------------------------------------------

    fn state_machine(&mut self) -> Result<(), EmitError> {
        match self.state {
            State::StreamStart => self.emit_stream_start(),
            State::FirstDocumentStart => self.emit_document_start(true),
            State::DocumentStart => self.emit_document_start(false),
            State::DocumentContent => {
                self.states.push(State::DocumentEnd);
                self.emit_node(true, false, false, false)
            }
            State::DocumentEnd => self.emit_document_end(),
            State::FlowSequenceFirstItem => self.emit_flow_sequence_item(true),
            State::FlowSequenceItem => self.emit_flow_sequence_item(false),
            State::FlowMappingFirstKey => self.emit_flow_mapping_key(true),
            State::FlowMappingKey => self.emit_flow_mapping_key(false),
            State::FlowMappingSimpleValue => self.emit_flow_mapping_value(true),
            State::FlowMappingValue => self.emit_flow_mapping_value(false),
            State::BlockSequenceFirstItem => self.emit_block_sequence_item(true),
            State::BlockSequenceItem => self.emit_block_sequence_item(false),
            State::BlockMappingFirstKey => self.emit_block_mapping_key(true),
            State::BlockMappingKey => self.emit_block_mapping_key(false),
            State::BlockMappingSimpleValue => self.emit_block_mapping_value(true),
            State::BlockMappingValue => self.emit_block_mapping_value(false),
            State::End => Err(EmitError("expected nothing after STREAM-END".to_string())),
        }
    }

    fn emit_stream_start(&mut self) -> Result<(), EmitError> {
        if *self.event() != Ev::StreamStart {
            return Err(EmitError("expected STREAM-START".to_string()));
        }
        self.indent = -1;
        self.column = 0;
        self.whitespace = true;
        self.indention = true;
        self.state = State::FirstDocumentStart;
        Ok(())
    }

    fn emit_document_start(&mut self, first: bool) -> Result<(), EmitError> {
        match self.event() {
            Ev::DocStart => {
                if !first {
                    self.write_indent();
                    self.write_indicator("---", true, false, false);
                }
                self.state = State::DocumentContent;
                Ok(())
            }
            Ev::StreamEnd => {
                // yaml.v2's encoder clears `open_ended` before the stream end, so no
                // `...` terminator is ever written.
                self.state = State::End;
                Ok(())
            }
            _ => Err(EmitError(
                "expected DOCUMENT-START or STREAM-END".to_string(),
            )),
        }
    }

    fn emit_document_end(&mut self) -> Result<(), EmitError> {
        if *self.event() != Ev::DocEnd {
            return Err(EmitError("expected DOCUMENT-END".to_string()));
        }
        self.write_indent();
        self.state = State::DocumentStart;
        Ok(())
    }

    fn emit_flow_sequence_item(&mut self, first: bool) -> Result<(), EmitError> {
        if first {
            self.write_indicator("[", true, true, false);
            self.increase_indent(true, false);
            self.flow_level += 1;
        }
        if *self.event() == Ev::SeqEnd {
            self.flow_level -= 1;
            self.pop_indent();
            self.write_indicator("]", false, false, false);
            self.pop_state();
            return Ok(());
        }
        if !first {
            self.write_indicator(",", false, false, false);
        }
        if self.column > self.best_width {
            self.write_indent();
        }
        self.states.push(State::FlowSequenceItem);
        self.emit_node(false, true, false, false)
    }

    fn emit_flow_mapping_key(&mut self, first: bool) -> Result<(), EmitError> {
        if first {
            self.write_indicator("{", true, true, false);
            self.increase_indent(true, false);
            self.flow_level += 1;
        }
        if *self.event() == Ev::MapEnd {
            self.flow_level -= 1;
            self.pop_indent();
            self.write_indicator("}", false, false, false);
            self.pop_state();
            return Ok(());
        }
        if !first {
            self.write_indicator(",", false, false, false);
        }
        if self.column > self.best_width {
            self.write_indent();
        }
        if self.check_simple_key() {
            self.states.push(State::FlowMappingSimpleValue);
            return self.emit_node(false, false, true, true);
        }
        self.write_indicator("?", true, false, false);
        self.states.push(State::FlowMappingValue);
        self.emit_node(false, false, true, false)
    }

    fn emit_flow_mapping_value(&mut self, simple: bool) -> Result<(), EmitError> {
        if simple {
            self.write_indicator(":", false, false, false);
        } else {
            if self.column > self.best_width {
                self.write_indent();
            }
            self.write_indicator(":", true, false, false);
        }
        self.states.push(State::FlowMappingKey);
        self.emit_node(false, false, true, false)
    }

    fn emit_block_sequence_item(&mut self, first: bool) -> Result<(), EmitError> {
        if first {
            // yaml.v2 puts a sequence under a mapping key without indenting it;
            // yaml.v3 (without compact sequences) indents it.
            let indentless = !self.v3 && self.mapping_context && !self.indention;
            self.increase_indent(false, indentless);
        }
        if *self.event() == Ev::SeqEnd {
            self.pop_indent();
            self.pop_state();
            return Ok(());
        }
        self.write_indent();
        self.write_indicator("-", true, false, true);
        self.states.push(State::BlockSequenceItem);
        self.emit_node(false, true, false, false)
    }

    fn emit_block_mapping_key(&mut self, first: bool) -> Result<(), EmitError> {
        if first {
            self.increase_indent(false, false);
        }
        if *self.event() == Ev::MapEnd {
            self.pop_indent();
            self.pop_state();
            return Ok(());
        }
        self.write_indent();
        if self.check_simple_key() {
            self.states.push(State::BlockMappingSimpleValue);
            return self.emit_node(false, false, true, true);
        }
        self.write_indicator("?", true, false, true);
        self.states.push(State::BlockMappingValue);
        self.emit_node(false, false, true, false)
    }

    fn emit_block_mapping_value(&mut self, simple: bool) -> Result<(), EmitError> {
        if simple {
            self.write_indicator(":", false, false, false);
        } else {
            self.write_indent();
            self.write_indicator(":", true, false, true);
        }
        self.states.push(State::BlockMappingKey);
        self.emit_node(false, false, true, false)
    }

    fn emit_node(
        &mut self,
        root: bool,
        sequence: bool,
        mapping: bool,
        simple_key: bool,
    ) -> Result<(), EmitError> {
        self.root_context = root;
        self.sequence_context = sequence;
        self.mapping_context = mapping;
        self.simple_key_context = simple_key;
        match self.event() {
            Ev::Scalar { .. } => self.emit_scalar(),
            Ev::SeqStart { flow } => {
                let flow = *flow;
                self.state = if self.flow_level > 0 || flow || self.check_empty_sequence() {
                    State::FlowSequenceFirstItem
                } else {
                    State::BlockSequenceFirstItem
                };
                Ok(())
            }
            Ev::MapStart { flow } => {
                let flow = *flow;
                self.state = if self.flow_level > 0 || flow || self.check_empty_mapping() {
                    State::FlowMappingFirstKey
                } else {
                    State::BlockMappingFirstKey
                };
                Ok(())
            }
            other => Err(EmitError(format!(
                "expected SCALAR, SEQUENCE-START, MAPPING-START, or ALIAS, but got {other:?}"
            ))),
        }
    }

    fn emit_scalar(&mut self) -> Result<(), EmitError> {
        self.select_scalar_style();
        self.increase_indent(true, false);
        self.process_scalar();
        self.pop_indent();
        self.pop_state();
        Ok(())
    }

    fn check_empty_sequence(&self) -> bool {
        matches!(self.events.get(self.head), Some(Ev::SeqStart { .. }))
            && matches!(self.events.get(self.head + 1), Some(Ev::SeqEnd))
    }

    fn check_empty_mapping(&self) -> bool {
        matches!(self.events.get(self.head), Some(Ev::MapStart { .. }))
            && matches!(self.events.get(self.head + 1), Some(Ev::MapEnd))
    }

    fn check_simple_key(&self) -> bool {
        let length = match self.event() {
            Ev::Scalar { .. } => {
                if self.scalar.multiline {
                    return false;
                }
                self.scalar_value.len()
            }
            Ev::SeqStart { .. } => {
                if !self.check_empty_sequence() {
                    return false;
                }
                0
            }
            Ev::MapStart { .. } => {
                if !self.check_empty_mapping() {
                    return false;
                }
                0
            }
            _ => return false,
        };
        length <= 128
    }

    fn select_scalar_style(&mut self) {
        let Ev::Scalar { style, .. } = self.event() else {
            return;
        };
        let mut style = *style;
        if self.simple_key_context && self.scalar.multiline {
            style = ScalarStyle::DoubleQuoted;
        }
        if style == ScalarStyle::Plain {
            if (self.flow_level > 0 && !self.scalar.flow_plain_allowed)
                || (self.flow_level == 0 && !self.scalar.block_plain_allowed)
            {
                style = ScalarStyle::SingleQuoted;
            }
            if self.scalar_value.is_empty() && (self.flow_level > 0 || self.simple_key_context) {
                style = ScalarStyle::SingleQuoted;
            }
        }
        if style == ScalarStyle::SingleQuoted && !self.scalar.single_quoted_allowed {
            style = ScalarStyle::DoubleQuoted;
        }
        if (style == ScalarStyle::Literal || style == ScalarStyle::Folded)
            && (!self.scalar.block_allowed || self.flow_level > 0 || self.simple_key_context)
        {
            style = ScalarStyle::DoubleQuoted;
        }
        self.scalar_style = style;
    }

    fn process_scalar(&mut self) {
        let value = std::mem::take(&mut self.scalar_value);
        let v = value.as_bytes();
        let allow_breaks = !self.simple_key_context;
        match self.scalar_style {
            ScalarStyle::Plain => self.write_plain_scalar(v, allow_breaks),
            ScalarStyle::SingleQuoted => self.write_single_quoted_scalar(v, allow_breaks),
            ScalarStyle::DoubleQuoted => self.write_double_quoted_scalar(v, allow_breaks),
            ScalarStyle::Literal => self.write_literal_scalar(v),
            ScalarStyle::Folded => self.write_folded_scalar(v),
        }
        self.scalar_value = value;
    }

    // ---- analysis -----------------------------------------------------------------

    fn analyze_event(&mut self) {
        self.scalar_value.clear();
        if let Ev::Scalar { value, .. } = self.event() {
            self.scalar_value = value.clone();
            self.scalar = analyze_scalar(value.as_bytes(), self.v3);
        }
    }

    // ---- scalar writers -----------------------------------------------------------

    fn write_plain_scalar(&mut self, v: &[u8], allow_breaks: bool) {
        if !(self.whitespace || (self.v3 && v.is_empty())) {
            self.put(' ');
        }
        let mut spaces = false;
        let mut breaks = false;
        let mut i = 0;
        while i < v.len() {
            if is_space(v, i) {
                if allow_breaks && !spaces && self.column > self.best_width && !is_space(v, i + 1) {
                    self.write_indent();
                    i += width(v[i]);
                } else {
                    self.write(v, &mut i);
                }
                spaces = true;
            } else if is_break(v, i) {
                if !breaks && v[i] == b'\n' {
                    self.put_break();
                }
                self.write_break(v, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.write(v, &mut i);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        if !(self.v3 && v.is_empty()) {
            self.whitespace = false;
        }
        self.indention = false;
        if self.root_context {
            self.open_ended = true;
        }
    }

    fn write_single_quoted_scalar(&mut self, v: &[u8], allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let mut spaces = false;
        let mut breaks = false;
        let mut i = 0;
        while i < v.len() {
            if is_space(v, i) {
                if allow_breaks
                    && !spaces
                    && self.column > self.best_width
                    && i > 0
                    && i < v.len() - 1
                    && !is_space(v, i + 1)
                {
                    self.write_indent();
                    i += width(v[i]);
                } else {
                    self.write(v, &mut i);
                }
                spaces = true;
            } else if is_break(v, i) {
                if !breaks && v[i] == b'\n' {
                    self.put_break();
                }
                self.write_break(v, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if v[i] == b'\'' {
                    self.put('\'');
                }
                self.write(v, &mut i);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double_quoted_scalar(&mut self, v: &[u8], allow_breaks: bool) {
        let mut spaces = false;
        self.write_indicator("\"", true, false, false);
        let bom = starts_with_bom(v);
        let mut i = 0;
        while i < v.len() {
            if !is_printable(v, i) || bom || is_break(v, i) || v[i] == b'"' || v[i] == b'\\' {
                let w = width(v[i]).min(v.len() - i);
                let ch = std::str::from_utf8(&v[i..i + w])
                    .ok()
                    .and_then(|s| s.chars().next())
                    .map_or(0xFFFD, |c| c as u32);
                i += w;
                self.put('\\');
                match ch {
                    0x00 => self.put('0'),
                    0x07 => self.put('a'),
                    0x08 => self.put('b'),
                    0x09 => self.put('t'),
                    0x0A => self.put('n'),
                    0x0B => self.put('v'),
                    0x0C => self.put('f'),
                    0x0D => self.put('r'),
                    0x1B => self.put('e'),
                    0x22 => self.put('"'),
                    0x5C => self.put('\\'),
                    0x85 => self.put('N'),
                    0xA0 => self.put('_'),
                    0x2028 => self.put('L'),
                    0x2029 => self.put('P'),
                    _ => {
                        let (c, digits) = if ch <= 0xFF {
                            ('x', 2)
                        } else if ch <= 0xFFFF {
                            ('u', 4)
                        } else {
                            ('U', 8)
                        };
                        self.put(c);
                        for k in (0..digits).rev() {
                            let d = (ch >> (4 * k)) & 0xF;
                            let c = char::from_digit(d, 16).unwrap_or('0').to_ascii_uppercase();
                            self.put(c);
                        }
                    }
                }
                spaces = false;
            } else if is_space(v, i) {
                if allow_breaks
                    && !spaces
                    && self.column > self.best_width
                    && i > 0
                    && i < v.len() - 1
                {
                    self.write_indent();
                    if is_space(v, i + 1) {
                        self.put('\\');
                    }
                    i += width(v[i]);
                } else {
                    self.write(v, &mut i);
                }
                spaces = true;
            } else {
                self.write(v, &mut i);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_block_scalar_hints(&mut self, v: &[u8]) {
        if is_space(v, 0) || is_break(v, 0) {
            let hint = format!("{}", self.best_indent);
            self.write_indicator(&hint, false, false, false);
        }
        self.open_ended = false;
        let mut chomp = None;
        if v.is_empty() {
            chomp = Some("-");
        } else {
            let mut i = v.len() - 1;
            while i > 0 && v[i] & 0xC0 == 0x80 {
                i -= 1;
            }
            if !is_break(v, i) {
                chomp = Some("-");
            } else if i == 0 {
                chomp = Some("+");
                self.open_ended = true;
            } else {
                i -= 1;
                while i > 0 && v[i] & 0xC0 == 0x80 {
                    i -= 1;
                }
                if is_break(v, i) {
                    chomp = Some("+");
                    self.open_ended = true;
                }
            }
        }
        if let Some(c) = chomp {
            self.write_indicator(c, false, false, false);
        }
    }

    fn write_literal_scalar(&mut self, v: &[u8]) {
        self.write_indicator("|", true, false, false);
        self.write_block_scalar_hints(v);
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        let mut i = 0;
        while i < v.len() {
            if is_break(v, i) {
                self.write_break(v, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.write(v, &mut i);
                self.indention = false;
                breaks = false;
            }
        }
    }

    fn write_folded_scalar(&mut self, v: &[u8]) {
        self.write_indicator(">", true, false, false);
        self.write_block_scalar_hints(v);
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        let mut leading_spaces = true;
        let mut i = 0;
        while i < v.len() {
            if is_break(v, i) {
                if !breaks && !leading_spaces && v[i] == b'\n' {
                    let mut k = 0;
                    while is_break(v, k) {
                        k += width(v[k]);
                    }
                    if !is_blankz(v, k) {
                        self.put_break();
                    }
                }
                self.write_break(v, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                    leading_spaces = is_blank(v, i);
                }
                if !breaks && is_space(v, i) && !is_space(v, i + 1) && self.column > self.best_width
                {
                    self.write_indent();
                    i += width(v[i]);
                } else {
                    self.write(v, &mut i);
                }
                self.indention = false;
                breaks = false;
            }
        }
    }
}

fn analyze_scalar(v: &[u8], v3: bool) -> ScalarAnalysis {
    if v.is_empty() {
        return ScalarAnalysis {
            multiline: false,
            flow_plain_allowed: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let mut block_indicators = false;
    let mut flow_indicators = false;
    let mut line_breaks = false;
    let mut special_characters = false;
    let mut leading_space = false;
    let mut leading_break = false;
    let mut trailing_space = false;
    let mut trailing_break = false;
    let mut break_space = false;
    let mut space_break = false;
    let mut previous_space = false;
    let mut previous_break = false;
    let mut tab_characters = false;

    if v.len() >= 3 && (v.starts_with(b"---") || v.starts_with(b"...")) {
        block_indicators = true;
        flow_indicators = true;
    }
    let mut preceded_by_whitespace = true;
    let mut i = 0;
    while i < v.len() {
        let w = width(v[i]);
        let followed_by_whitespace = i + w >= v.len() || is_blank(v, i + w);
        if i == 0 {
            match v[i] {
                b'#' | b',' | b'[' | b']' | b'{' | b'}' | b'&' | b'*' | b'!' | b'|' | b'>'
                | b'\'' | b'"' | b'%' | b'@' | b'`' => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                b'?' | b':' => {
                    flow_indicators = true;
                    block_indicators |= followed_by_whitespace;
                }
                b'-' if followed_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        } else {
            match v[i] {
                b',' | b'?' | b'[' | b']' | b'{' | b'}' => flow_indicators = true,
                b':' => {
                    flow_indicators = true;
                    if followed_by_whitespace {
                        block_indicators = true;
                    }
                }
                b'#' if preceded_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        }
        if v3 && v[i] == b'\t' {
            tab_characters = true;
        } else if !is_printable(v, i) {
            special_characters = true;
        }
        if is_space(v, i) {
            if i == 0 {
                leading_space = true;
            }
            if i + w == v.len() {
                trailing_space = true;
            }
            if previous_break {
                break_space = true;
            }
            previous_space = true;
            previous_break = false;
        } else if is_break(v, i) {
            line_breaks = true;
            if i == 0 {
                leading_break = true;
            }
            if i + w == v.len() {
                trailing_break = true;
            }
            if previous_space {
                space_break = true;
            }
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_blankz(v, i);
        i += w.max(1);
    }

    let mut a = ScalarAnalysis {
        multiline: line_breaks,
        flow_plain_allowed: true,
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
    }
    if trailing_space {
        a.block_allowed = false;
    }
    if break_space {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || tab_characters || special_characters {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special_characters {
        a.block_allowed = false;
    }
    if line_breaks {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
    }
    if flow_indicators {
        a.flow_plain_allowed = false;
    }
    if block_indicators {
        a.block_plain_allowed = false;
    }
    a
}
