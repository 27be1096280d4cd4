//! The YAML event parser: libyaml's LL(1) state machine over the scanner's tokens, as
//! go-yaml v2 runs it.
//!
//! Parser errors such as `did not find expected key` carry the mark of the offending
//! token and a context mark (the start of the enclosing collection); go-yaml prints
//! them with a quirky line rule (see [`SyntaxError::go_message`]), so the marks here
//! must be exactly libyaml's.

use super::scanner::{ErrorStage, Mark, ScalarStyle, Scanner, SyntaxError, TokenKind};

type Result<T> = std::result::Result<T, SyntaxError>;

#[derive(Clone, Debug, PartialEq)]
pub enum EventKind {
    StreamStart,
    StreamEnd,
    DocumentStart {
        implicit: bool,
    },
    DocumentEnd {
        implicit: bool,
    },
    Alias {
        anchor: String,
    },
    Scalar {
        anchor: Option<String>,
        tag: Option<String>,
        value: String,
        plain_implicit: bool,
        quoted_implicit: bool,
        style: ScalarStyle,
    },
    SequenceStart {
        anchor: Option<String>,
        tag: Option<String>,
        implicit: bool,
        flow: bool,
    },
    SequenceEnd,
    MappingStart {
        anchor: Option<String>,
        tag: Option<String>,
        implicit: bool,
        flow: bool,
    },
    MappingEnd,
}

#[derive(Clone, Debug)]
pub struct Event {
    pub kind: EventKind,
    pub start: Mark,
    pub end: Mark,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    StreamStart,
    ImplicitDocumentStart,
    DocumentStart,
    DocumentContent,
    DocumentEnd,
    BlockNode,
    BlockSequenceFirstEntry,
    BlockSequenceEntry,
    IndentlessSequenceEntry,
    BlockMappingFirstKey,
    BlockMappingKey,
    BlockMappingValue,
    FlowSequenceFirstEntry,
    FlowSequenceEntry,
    FlowSequenceEntryMappingKey,
    FlowSequenceEntryMappingValue,
    FlowSequenceEntryMappingEnd,
    FlowMappingFirstKey,
    FlowMappingKey,
    FlowMappingValue,
    FlowMappingEmptyValue,
    End,
}

pub struct Parser {
    scanner: Scanner,
    state: State,
    states: Vec<State>,
    marks: Vec<Mark>,
    tag_directives: Vec<(Vec<u8>, Vec<u8>)>,
    error: Option<SyntaxError>,
}

const DEFAULT_TAGS: [(&[u8], &[u8]); 2] = [(b"!", b"!"), (b"!!", b"tag:yaml.org,2002:")];

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

impl Parser {
    pub fn new(input: &str) -> Parser {
        Parser {
            scanner: Scanner::new(input),
            state: State::StreamStart,
            states: Vec::new(),
            marks: Vec::new(),
            tag_directives: Vec::new(),
            error: None,
        }
    }

    /// The next event, or `None` once the stream has ended.
    pub fn next_event(&mut self) -> Result<Option<Event>> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.scanner.stream_end_produced || self.state == State::End {
            return Ok(None);
        }
        match self.state_machine() {
            Ok(ev) => Ok(Some(ev)),
            Err(e) => {
                self.error = Some(e.clone());
                Err(e)
            }
        }
    }

    fn parser_error(&self, problem: &str, problem_mark: Mark) -> SyntaxError {
        SyntaxError {
            stage: ErrorStage::Parser,
            problem: problem.to_string(),
            problem_mark,
            context: String::new(),
            context_mark: Mark::default(),
        }
    }

    fn parser_error_context(
        &self,
        context: &str,
        context_mark: Mark,
        problem: &str,
        problem_mark: Mark,
    ) -> SyntaxError {
        SyntaxError {
            stage: ErrorStage::Parser,
            problem: problem.to_string(),
            problem_mark,
            context: context.to_string(),
            context_mark,
        }
    }

    fn pop_state(&mut self) {
        self.state = self.states.pop().unwrap_or(State::End);
    }

    fn peek_kind(&mut self) -> Result<(TokenKind, Mark, Mark)> {
        let t = self.scanner.peek()?;
        Ok((t.kind.clone(), t.start, t.end))
    }

    fn state_machine(&mut self) -> Result<Event> {
        match self.state {
            State::StreamStart => self.parse_stream_start(),
            State::ImplicitDocumentStart => self.parse_document_start(true),
            State::DocumentStart => self.parse_document_start(false),
            State::DocumentContent => self.parse_document_content(),
            State::DocumentEnd => self.parse_document_end(),
            State::BlockNode => self.parse_node(true, false),
            State::BlockSequenceFirstEntry => self.parse_block_sequence_entry(true),
            State::BlockSequenceEntry => self.parse_block_sequence_entry(false),
            State::IndentlessSequenceEntry => self.parse_indentless_sequence_entry(),
            State::BlockMappingFirstKey => self.parse_block_mapping_key(true),
            State::BlockMappingKey => self.parse_block_mapping_key(false),
            State::BlockMappingValue => self.parse_block_mapping_value(),
            State::FlowSequenceFirstEntry => self.parse_flow_sequence_entry(true),
            State::FlowSequenceEntry => self.parse_flow_sequence_entry(false),
            State::FlowSequenceEntryMappingKey => self.parse_flow_sequence_entry_mapping_key(),
            State::FlowSequenceEntryMappingValue => self.parse_flow_sequence_entry_mapping_value(),
            State::FlowSequenceEntryMappingEnd => self.parse_flow_sequence_entry_mapping_end(),
            State::FlowMappingFirstKey => self.parse_flow_mapping_key(true),
            State::FlowMappingKey => self.parse_flow_mapping_key(false),
            State::FlowMappingValue => self.parse_flow_mapping_value(false),
            State::FlowMappingEmptyValue => self.parse_flow_mapping_value(true),
            State::End => Err(self.parser_error("no more events", Mark::default())),
        }
    }

    fn parse_stream_start(&mut self) -> Result<Event> {
        let (kind, start, end) = self.peek_kind()?;
        if kind != TokenKind::StreamStart {
            return Err(self.parser_error("did not find expected <stream-start>", start));
        }
        self.state = State::ImplicitDocumentStart;
        self.scanner.skip_token();
        Ok(Event {
            kind: EventKind::StreamStart,
            start,
            end,
        })
    }

    fn parse_document_start(&mut self, implicit: bool) -> Result<Event> {
        let (mut kind, mut start, mut end) = self.peek_kind()?;
        if !implicit {
            while kind == TokenKind::DocumentEnd {
                self.scanner.skip_token();
                (kind, start, end) = self.peek_kind()?;
            }
        }
        let is_directive = matches!(
            kind,
            TokenKind::VersionDirective(..) | TokenKind::TagDirective { .. }
        );
        if implicit
            && !is_directive
            && kind != TokenKind::DocumentStart
            && kind != TokenKind::StreamEnd
        {
            self.process_directives()?;
            self.states.push(State::DocumentEnd);
            self.state = State::BlockNode;
            return Ok(Event {
                kind: EventKind::DocumentStart { implicit: true },
                start,
                end,
            });
        }
        if kind != TokenKind::StreamEnd {
            let doc_start = start;
            self.process_directives()?;
            let (kind, start, end) = self.peek_kind()?;
            if kind != TokenKind::DocumentStart {
                return Err(self.parser_error("did not find expected <document start>", start));
            }
            self.states.push(State::DocumentEnd);
            self.state = State::DocumentContent;
            self.scanner.skip_token();
            return Ok(Event {
                kind: EventKind::DocumentStart { implicit: false },
                start: doc_start,
                end,
            });
        }
        self.state = State::End;
        self.scanner.skip_token();
        Ok(Event {
            kind: EventKind::StreamEnd,
            start,
            end,
        })
    }

    fn parse_document_content(&mut self) -> Result<Event> {
        let (kind, start, _) = self.peek_kind()?;
        if matches!(
            kind,
            TokenKind::VersionDirective(..)
                | TokenKind::TagDirective { .. }
                | TokenKind::DocumentStart
                | TokenKind::DocumentEnd
                | TokenKind::StreamEnd
        ) {
            self.pop_state();
            return Ok(empty_scalar(start));
        }
        self.parse_node(true, false)
    }

    fn parse_document_end(&mut self) -> Result<Event> {
        let (kind, start, end) = self.peek_kind()?;
        let mut end_mark = start;
        let mut implicit = true;
        if kind == TokenKind::DocumentEnd {
            end_mark = end;
            self.scanner.skip_token();
            implicit = false;
        }
        self.tag_directives.clear();
        self.state = State::DocumentStart;
        Ok(Event {
            kind: EventKind::DocumentEnd { implicit },
            start,
            end: end_mark,
        })
    }

    fn parse_node(&mut self, block: bool, indentless_sequence: bool) -> Result<Event> {
        let (mut kind, mut tok_start, mut tok_end) = self.peek_kind()?;
        if let TokenKind::Alias(name) = &kind {
            self.pop_state();
            let ev = Event {
                kind: EventKind::Alias {
                    anchor: name.clone(),
                },
                start: tok_start,
                end: tok_end,
            };
            self.scanner.skip_token();
            return Ok(ev);
        }
        let mut start_mark = tok_start;
        let mut end_mark = tok_start;
        let mut tag_token: Option<(Vec<u8>, Vec<u8>)> = None;
        let mut anchor: Option<String> = None;
        let mut tag_mark = Mark::default();
        if let TokenKind::Anchor(name) = &kind {
            anchor = Some(name.clone());
            start_mark = tok_start;
            end_mark = tok_end;
            self.scanner.skip_token();
            (kind, tok_start, tok_end) = self.peek_kind()?;
            if let TokenKind::Tag { handle, suffix } = &kind {
                tag_token = Some((handle.clone(), suffix.clone()));
                tag_mark = tok_start;
                end_mark = tok_end;
                self.scanner.skip_token();
                (kind, tok_start, tok_end) = self.peek_kind()?;
            }
        } else if let TokenKind::Tag { handle, suffix } = &kind {
            tag_token = Some((handle.clone(), suffix.clone()));
            start_mark = tok_start;
            tag_mark = tok_start;
            end_mark = tok_end;
            self.scanner.skip_token();
            (kind, tok_start, tok_end) = self.peek_kind()?;
            if let TokenKind::Anchor(name) = &kind {
                anchor = Some(name.clone());
                end_mark = tok_end;
                self.scanner.skip_token();
                (kind, tok_start, tok_end) = self.peek_kind()?;
            }
        }

        let mut tag: Vec<u8> = Vec::new();
        if let Some((handle, suffix)) = tag_token {
            if handle.is_empty() {
                tag = suffix;
            } else {
                let found = self
                    .tag_directives
                    .iter()
                    .find(|(h, _)| *h == handle)
                    .map(|(_, p)| p.clone());
                if let Some(prefix) = found {
                    tag = prefix;
                    tag.extend_from_slice(&suffix);
                }
                if tag.is_empty() {
                    return Err(self.parser_error_context(
                        "while parsing a node",
                        start_mark,
                        "found undefined tag handle",
                        tag_mark,
                    ));
                }
            }
        }
        let implicit = tag.is_empty();
        let tag_opt = if tag.is_empty() {
            None
        } else {
            Some(lossy(&tag))
        };

        if indentless_sequence && kind == TokenKind::BlockEntry {
            end_mark = tok_end;
            self.state = State::IndentlessSequenceEntry;
            return Ok(Event {
                kind: EventKind::SequenceStart {
                    anchor,
                    tag: tag_opt,
                    implicit,
                    flow: false,
                },
                start: start_mark,
                end: end_mark,
            });
        }
        if let TokenKind::Scalar { value, style } = &kind {
            end_mark = tok_end;
            let mut plain_implicit = false;
            let mut quoted_implicit = false;
            if (tag.is_empty() && *style == ScalarStyle::Plain) || tag == b"!" {
                plain_implicit = true;
            } else if tag.is_empty() {
                quoted_implicit = true;
            }
            self.pop_state();
            let ev = Event {
                kind: EventKind::Scalar {
                    anchor,
                    tag: tag_opt,
                    value: value.clone(),
                    plain_implicit,
                    quoted_implicit,
                    style: *style,
                },
                start: start_mark,
                end: end_mark,
            };
            self.scanner.skip_token();
            return Ok(ev);
        }
        if kind == TokenKind::FlowSequenceStart {
            end_mark = tok_end;
            self.state = State::FlowSequenceFirstEntry;
            return Ok(Event {
                kind: EventKind::SequenceStart {
                    anchor,
                    tag: tag_opt,
                    implicit,
                    flow: true,
                },
                start: start_mark,
                end: end_mark,
            });
        }
        if kind == TokenKind::FlowMappingStart {
            end_mark = tok_end;
            self.state = State::FlowMappingFirstKey;
            return Ok(Event {
                kind: EventKind::MappingStart {
                    anchor,
                    tag: tag_opt,
                    implicit,
                    flow: true,
                },
                start: start_mark,
                end: end_mark,
            });
        }
        if block && kind == TokenKind::BlockSequenceStart {
            end_mark = tok_end;
            self.state = State::BlockSequenceFirstEntry;
            return Ok(Event {
                kind: EventKind::SequenceStart {
                    anchor,
                    tag: tag_opt,
                    implicit,
                    flow: false,
                },
                start: start_mark,
                end: end_mark,
            });
        }
        if block && kind == TokenKind::BlockMappingStart {
            end_mark = tok_end;
            self.state = State::BlockMappingFirstKey;
            return Ok(Event {
                kind: EventKind::MappingStart {
                    anchor,
                    tag: tag_opt,
                    implicit,
                    flow: false,
                },
                start: start_mark,
                end: end_mark,
            });
        }
        if anchor.is_some() || tag_opt.is_some() {
            self.pop_state();
            return Ok(Event {
                kind: EventKind::Scalar {
                    anchor,
                    tag: tag_opt,
                    value: String::new(),
                    plain_implicit: implicit,
                    quoted_implicit: false,
                    style: ScalarStyle::Plain,
                },
                start: start_mark,
                end: end_mark,
            });
        }
        let context = if block {
            "while parsing a block node"
        } else {
            "while parsing a flow node"
        };
        Err(self.parser_error_context(
            context,
            start_mark,
            "did not find expected node content",
            tok_start,
        ))
    }

    fn parse_block_sequence_entry(&mut self, first: bool) -> Result<Event> {
        if first {
            let (_, start, _) = self.peek_kind()?;
            self.marks.push(start);
            self.scanner.skip_token();
        }
        let (kind, start, end) = self.peek_kind()?;
        if kind == TokenKind::BlockEntry {
            let mark = end;
            self.scanner.skip_token();
            let (kind, _, _) = self.peek_kind()?;
            if kind != TokenKind::BlockEntry && kind != TokenKind::BlockEnd {
                self.states.push(State::BlockSequenceEntry);
                return self.parse_node(true, false);
            }
            self.state = State::BlockSequenceEntry;
            return Ok(empty_scalar(mark));
        }
        if kind == TokenKind::BlockEnd {
            self.pop_state();
            self.marks.pop();
            self.scanner.skip_token();
            return Ok(Event {
                kind: EventKind::SequenceEnd,
                start,
                end,
            });
        }
        let context_mark = self.marks.pop().unwrap_or_default();
        Err(self.parser_error_context(
            "while parsing a block collection",
            context_mark,
            "did not find expected '-' indicator",
            start,
        ))
    }

    fn parse_indentless_sequence_entry(&mut self) -> Result<Event> {
        let (kind, start, end) = self.peek_kind()?;
        if kind == TokenKind::BlockEntry {
            let mark = end;
            self.scanner.skip_token();
            let (kind, _, _) = self.peek_kind()?;
            if !matches!(
                kind,
                TokenKind::BlockEntry | TokenKind::Key | TokenKind::Value | TokenKind::BlockEnd
            ) {
                self.states.push(State::IndentlessSequenceEntry);
                return self.parse_node(true, false);
            }
            self.state = State::IndentlessSequenceEntry;
            return Ok(empty_scalar(mark));
        }
        self.pop_state();
        Ok(Event {
            kind: EventKind::SequenceEnd,
            start,
            end: start,
        })
    }

    fn parse_block_mapping_key(&mut self, first: bool) -> Result<Event> {
        if first {
            let (_, start, _) = self.peek_kind()?;
            self.marks.push(start);
            self.scanner.skip_token();
        }
        let (kind, start, end) = self.peek_kind()?;
        if kind == TokenKind::Key {
            let mark = end;
            self.scanner.skip_token();
            let (kind, _, _) = self.peek_kind()?;
            if !matches!(
                kind,
                TokenKind::Key | TokenKind::Value | TokenKind::BlockEnd
            ) {
                self.states.push(State::BlockMappingValue);
                return self.parse_node(true, true);
            }
            self.state = State::BlockMappingValue;
            return Ok(empty_scalar(mark));
        }
        if kind == TokenKind::BlockEnd {
            self.pop_state();
            self.marks.pop();
            self.scanner.skip_token();
            return Ok(Event {
                kind: EventKind::MappingEnd,
                start,
                end,
            });
        }
        let context_mark = self.marks.pop().unwrap_or_default();
        Err(self.parser_error_context(
            "while parsing a block mapping",
            context_mark,
            "did not find expected key",
            start,
        ))
    }

    fn parse_block_mapping_value(&mut self) -> Result<Event> {
        let (kind, start, end) = self.peek_kind()?;
        if kind == TokenKind::Value {
            let mark = end;
            self.scanner.skip_token();
            let (kind, _, _) = self.peek_kind()?;
            if !matches!(
                kind,
                TokenKind::Key | TokenKind::Value | TokenKind::BlockEnd
            ) {
                self.states.push(State::BlockMappingKey);
                return self.parse_node(true, true);
            }
            self.state = State::BlockMappingKey;
            return Ok(empty_scalar(mark));
        }
        self.state = State::BlockMappingKey;
        Ok(empty_scalar(start))
    }

    fn parse_flow_sequence_entry(&mut self, first: bool) -> Result<Event> {
        if first {
            let (_, start, _) = self.peek_kind()?;
            self.marks.push(start);
            self.scanner.skip_token();
        }
        let (mut kind, mut start, mut end) = self.peek_kind()?;
        if kind != TokenKind::FlowSequenceEnd {
            if !first {
                if kind == TokenKind::FlowEntry {
                    self.scanner.skip_token();
                    (kind, start, end) = self.peek_kind()?;
                } else {
                    let context_mark = self.marks.pop().unwrap_or_default();
                    return Err(self.parser_error_context(
                        "while parsing a flow sequence",
                        context_mark,
                        "did not find expected ',' or ']'",
                        start,
                    ));
                }
            }
            if kind == TokenKind::Key {
                self.state = State::FlowSequenceEntryMappingKey;
                self.scanner.skip_token();
                return Ok(Event {
                    kind: EventKind::MappingStart {
                        anchor: None,
                        tag: None,
                        implicit: true,
                        flow: true,
                    },
                    start,
                    end,
                });
            } else if kind != TokenKind::FlowSequenceEnd {
                self.states.push(State::FlowSequenceEntry);
                return self.parse_node(false, false);
            }
        }
        self.pop_state();
        self.marks.pop();
        self.scanner.skip_token();
        Ok(Event {
            kind: EventKind::SequenceEnd,
            start,
            end,
        })
    }

    fn parse_flow_sequence_entry_mapping_key(&mut self) -> Result<Event> {
        let (kind, _, end) = self.peek_kind()?;
        if !matches!(
            kind,
            TokenKind::Value | TokenKind::FlowEntry | TokenKind::FlowSequenceEnd
        ) {
            self.states.push(State::FlowSequenceEntryMappingValue);
            return self.parse_node(false, false);
        }
        let mark = end;
        self.scanner.skip_token();
        self.state = State::FlowSequenceEntryMappingValue;
        Ok(empty_scalar(mark))
    }

    fn parse_flow_sequence_entry_mapping_value(&mut self) -> Result<Event> {
        // libyaml reports the empty value at the ':' token (the inner look-ahead is
        // only used to decide whether a value node follows).
        let (kind, start, _) = self.peek_kind()?;
        if kind == TokenKind::Value {
            self.scanner.skip_token();
            let (kind, _, _) = self.peek_kind()?;
            if kind != TokenKind::FlowEntry && kind != TokenKind::FlowSequenceEnd {
                self.states.push(State::FlowSequenceEntryMappingEnd);
                return self.parse_node(false, false);
            }
        }
        self.state = State::FlowSequenceEntryMappingEnd;
        Ok(empty_scalar(start))
    }

    fn parse_flow_sequence_entry_mapping_end(&mut self) -> Result<Event> {
        let (_, start, _) = self.peek_kind()?;
        self.state = State::FlowSequenceEntry;
        Ok(Event {
            kind: EventKind::MappingEnd,
            start,
            end: start,
        })
    }

    fn parse_flow_mapping_key(&mut self, first: bool) -> Result<Event> {
        if first {
            let (_, start, _) = self.peek_kind()?;
            self.marks.push(start);
            self.scanner.skip_token();
        }
        let (mut kind, mut start, mut end) = self.peek_kind()?;
        if kind != TokenKind::FlowMappingEnd {
            if !first {
                if kind == TokenKind::FlowEntry {
                    self.scanner.skip_token();
                    (kind, start, end) = self.peek_kind()?;
                } else {
                    let context_mark = self.marks.pop().unwrap_or_default();
                    return Err(self.parser_error_context(
                        "while parsing a flow mapping",
                        context_mark,
                        "did not find expected ',' or '}'",
                        start,
                    ));
                }
            }
            if kind == TokenKind::Key {
                self.scanner.skip_token();
                let (kind, start, _) = self.peek_kind()?;
                if !matches!(
                    kind,
                    TokenKind::Value | TokenKind::FlowEntry | TokenKind::FlowMappingEnd
                ) {
                    self.states.push(State::FlowMappingValue);
                    return self.parse_node(false, false);
                }
                self.state = State::FlowMappingValue;
                return Ok(empty_scalar(start));
            } else if kind != TokenKind::FlowMappingEnd {
                self.states.push(State::FlowMappingEmptyValue);
                return self.parse_node(false, false);
            }
        }
        self.pop_state();
        self.marks.pop();
        self.scanner.skip_token();
        Ok(Event {
            kind: EventKind::MappingEnd,
            start,
            end,
        })
    }

    fn parse_flow_mapping_value(&mut self, empty: bool) -> Result<Event> {
        let (kind, start, _) = self.peek_kind()?;
        if empty {
            self.state = State::FlowMappingKey;
            return Ok(empty_scalar(start));
        }
        let mut mark = start;
        if kind == TokenKind::Value {
            self.scanner.skip_token();
            let (kind, s2, _) = self.peek_kind()?;
            mark = s2;
            if kind != TokenKind::FlowEntry && kind != TokenKind::FlowMappingEnd {
                self.states.push(State::FlowMappingKey);
                return self.parse_node(false, false);
            }
        }
        self.state = State::FlowMappingKey;
        Ok(empty_scalar(mark))
    }

    fn process_directives(&mut self) -> Result<()> {
        let mut have_version = false;
        loop {
            let (kind, start, _) = self.peek_kind()?;
            match kind {
                TokenKind::VersionDirective(major, minor) => {
                    if have_version {
                        return Err(self.parser_error("found duplicate %YAML directive", start));
                    }
                    if major != 1 || minor != 1 {
                        return Err(self.parser_error("found incompatible YAML document", start));
                    }
                    have_version = true;
                }
                TokenKind::TagDirective { handle, prefix } => {
                    if self.tag_directives.iter().any(|(h, _)| *h == handle) {
                        return Err(self.parser_error("found duplicate %TAG directive", start));
                    }
                    self.tag_directives.push((handle, prefix));
                }
                _ => break,
            }
            self.scanner.skip_token();
        }
        for (h, p) in DEFAULT_TAGS {
            if !self.tag_directives.iter().any(|(hh, _)| hh == h) {
                self.tag_directives.push((h.to_vec(), p.to_vec()));
            }
        }
        Ok(())
    }
}

fn empty_scalar(mark: Mark) -> Event {
    Event {
        kind: EventKind::Scalar {
            anchor: None,
            tag: None,
            value: String::new(),
            plain_implicit: true,
            quoted_implicit: false,
            style: ScalarStyle::Plain,
        },
        start: mark,
        end: mark,
    }
}
