//! `kiln lsp`: a Language Server Protocol server on stdin/stdout for APS MLIR, Handshake
//! MLIR and BLIF, in front of the workspace's daemon (started on first use, like
//! `kiln build`), so every editor shares one warm database with builds and `watch`.
//!
//! The server is thin, as every client of the daemon: it keeps each open document's text
//! (to convert the editor's positions to byte offsets, [`text`]) and forwards. Edits go to
//! the daemon as byte ranges, where the document is an input of its own (an overlay: never
//! read from or written to disk) and only the edited function or model is analysed again;
//! diagnostics come back as a build's [`Located`] messages and are converted in one place
//! ([`diagnostic`]). Requests are answered in order, one at a time.
//!
//! The server survives any one message. Frames are read by [`wire`] (bounded by the
//! input-size limit; a message that cannot be framed is skipped). A body that is not JSON
//! gets a `-32700 Parse error` response, one that is not a request, notification or
//! response a `-32600 Invalid Request` — with the request's id when it can be read, else
//! with id `null` (JSON-RPC); a notification whose parameters are wrong is logged
//! (`window/logMessage`), never answered. The
//! lifecycle is the specification's: requests before `initialize` get `-32002`, a second
//! `initialize` and any request after `shutdown` get `-32600`, and `exit` (or the end of
//! stdin) ends the server with exit code 0 after `shutdown`, else 1.

pub mod text;
pub mod wire;

use crate::io::Failure;
use compiler::diag::{Located, Severity};
use kiln_daemon::client::Client;
use kiln_daemon::ide::{DocumentChange, Edit, OverlayChange};
use kiln_daemon::request::HandshakeSpec;
use lsp_server::{ErrorCode, RequestId};
use lsp_types as lsp;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use text::{Encoding, Text};
use wire::{Frame, Reader};

/// Handshake options for a document at a path (the library resolved like `kiln build`).
pub type HandshakeFor = Box<dyn Fn(&Path) -> HandshakeSpec>;

/// Serve on stdin/stdout until the editor says `exit` (or closes stdin).
pub fn run(handshake: HandshakeFor) -> Result<(), Failure> {
    let rt = crate::daemon_client::runtime()?;
    let connector = crate::daemon_client::connector()?;
    let client = rt
        .block_on(connector.ensure())
        .map_err(crate::daemon_client::fail)?;
    let mut server = Server {
        rt,
        client,
        docs: HashMap::new(),
        encoding: Encoding::Utf16,
        handshake,
        state: State::Waiting,
    };
    let max = kiln_daemon::input::limits().max_input_size;
    match server.serve(Reader::new(std::io::stdin().lock(), max)) {
        0 => Ok(()),
        code => Err(Failure {
            code,
            ..Failure::input(match server.state {
                State::ShutDown => "kiln lsp: stdin failed",
                _ => "kiln lsp: ended without a `shutdown` request",
            })
        }),
    }
}

/// Where the session is in LSP's lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before `initialize`.
    Waiting,
    Running,
    /// After `shutdown`: only `exit` is expected.
    ShutDown,
}

/// UTF-8 columns when the editor offers them, else LSP's default, UTF-16.
fn negotiate(params: &lsp::InitializeParams) -> Encoding {
    let offered = params
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref());
    match offered.is_some_and(|o| o.contains(&lsp::PositionEncodingKind::UTF8)) {
        true => Encoding::Utf8,
        false => Encoding::Utf16,
    }
}

fn capabilities(encoding: Encoding) -> lsp::ServerCapabilities {
    let enc = match encoding {
        Encoding::Utf8 => lsp::PositionEncodingKind::UTF8,
        Encoding::Utf16 => lsp::PositionEncodingKind::UTF16,
    };
    lsp::ServerCapabilities {
        position_encoding: Some(enc),
        text_document_sync: Some(lsp::TextDocumentSyncCapability::Kind(
            lsp::TextDocumentSyncKind::INCREMENTAL,
        )),
        definition_provider: Some(lsp::OneOf::Left(true)),
        references_provider: Some(lsp::OneOf::Left(true)),
        hover_provider: Some(lsp::HoverProviderCapability::Simple(true)),
        document_symbol_provider: Some(lsp::OneOf::Left(true)),
        code_lens_provider: Some(lsp::CodeLensOptions {
            resolve_provider: Some(false),
        }),
        inlay_hint_provider: Some(lsp::OneOf::Left(true)),
        semantic_tokens_provider: Some(
            lsp::SemanticTokensServerCapabilities::SemanticTokensOptions(
                lsp::SemanticTokensOptions {
                    legend: lsp::SemanticTokensLegend {
                        token_types: compiler::highlight::TokenType::ALL
                            .iter()
                            .map(|t| lsp::SemanticTokenType::new(t.lsp_name()))
                            .collect(),
                        token_modifiers: Vec::new(),
                    },
                    full: Some(lsp::SemanticTokensFullOptions::Bool(true)),
                    range: None,
                    ..Default::default()
                },
            ),
        ),
        ..Default::default()
    }
}

/// An open document.
struct Doc {
    path: PathBuf,
    version: i32,
    text: Text,
}

struct Server {
    rt: tokio::runtime::Runtime,
    client: Client,
    docs: HashMap<String, Doc>,
    encoding: Encoding,
    handshake: HandshakeFor,
    state: State,
}

/// The members of a JSON-RPC message, each kept as its JSON text until its kind is known
/// (`params` is decoded only into the type its method takes, never into a `Value`).
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// A member that is there, `null` included (absent members are `None` by `default`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// What a message is, once its members are checked.
enum Incoming<'a> {
    Request(RequestId, String, Option<&'a RawValue>),
    Notification(String, Option<&'a RawValue>),
    /// The editor's answer to a server request (this server sends none).
    Response,
    /// Not a valid message: answered with `-32600` for `id` (JSON `null` when unknown).
    Invalid {
        id: Option<RequestId>,
        why: String,
    },
}

/// A request id as LSP has it: an integer (32-bit) or a string.
fn request_id(raw: &RawValue) -> Option<RequestId> {
    if let Ok(n) = serde_json::from_str::<i32>(raw.get()) {
        return Some(RequestId::from(n));
    }
    serde_json::from_str::<String>(raw.get())
        .ok()
        .map(RequestId::from)
}

fn classify(e: Envelope<'_>) -> Incoming<'_> {
    let id = e.id.map(|raw| (raw, request_id(raw)));
    let method = e
        .method
        .map(|raw| serde_json::from_str::<String>(raw.get()));
    let invalid = |id: Option<RequestId>, why: &str| Incoming::Invalid {
        id,
        why: why.to_string(),
    };
    match (id, method) {
        (Some((_, Some(id))), Some(Ok(m))) => Incoming::Request(id, m, e.params),
        (None, Some(Ok(m))) => Incoming::Notification(m, e.params),
        (Some((raw, None)), _) => invalid(
            None,
            &format!("the id `{}` is not an integer or a string", cut(raw.get())),
        ),
        (id, Some(Err(_))) => invalid(id.and_then(|i| i.1), "`method` is not a string"),
        (Some((_, Some(_))), None) if e.result.is_some() || e.error.is_some() => Incoming::Response,
        (id, None) => invalid(id.and_then(|i| i.1), "a message without `method`"),
    }
}

/// At most 60 characters of `s`, for messages quoting input.
fn cut(s: &str) -> String {
    match s.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

impl Server {
    /// Serve until `exit` or the end of the input; the exit code.
    fn serve(&mut self, mut input: Reader<impl BufRead>) -> i32 {
        loop {
            let frame = match input.next() {
                Ok(f) => f,
                Err(e) => {
                    self.log(&format!("cannot read stdin: {e}"));
                    return 1;
                }
            };
            match frame {
                Frame::End => return self.exit_code(),
                Frame::Lost(why) => {
                    self.log(&why);
                    self.fail(None, ErrorCode::ParseError, format!("kiln lsp: {why}"));
                }
                Frame::Body { body, skipped } => {
                    if let Some(why) = skipped {
                        self.log(&why);
                    }
                    if let Some(code) = self.message(&body) {
                        return code;
                    }
                }
            }
        }
    }

    /// LSP's exit code: 0 after `shutdown`, else 1.
    fn exit_code(&self) -> i32 {
        match self.state {
            State::ShutDown => 0,
            _ => 1,
        }
    }

    /// Handle one message body; `Some(code)` when the server is to exit.
    fn message(&mut self, body: &[u8]) -> Option<i32> {
        let (text, utf8) = match std::str::from_utf8(body) {
            Ok(t) => (std::borrow::Cow::Borrowed(t), true),
            Err(_) => (String::from_utf8_lossy(body), false),
        };
        // An object (serde would take an array's elements as the members in order).
        let object = text.trim_start().starts_with('{');
        let envelope = match serde_json::from_str::<Envelope>(&text) {
            Ok(e) if object => e,
            parsed => {
                // Valid JSON of another shape (an array, a number) is an invalid request.
                let json = serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok();
                let (code, what) = match (utf8, json) {
                    (true, true) => (ErrorCode::InvalidRequest, "not a JSON-RPC message"),
                    (true, false) => (ErrorCode::ParseError, "not JSON"),
                    (false, _) => (ErrorCode::ParseError, "not UTF-8"),
                };
                let why = match parsed {
                    Err(e) => format!("a message that is {what} ({e})"),
                    Ok(_) => format!("a message that is {what} (not an object)"),
                };
                self.log(&why);
                self.fail(None, code, format!("kiln lsp: {why}"));
                return None;
            }
        };
        let incoming = classify(envelope);
        if !utf8 {
            // What it was is known, but not its text: answered as a parse error.
            let why = "kiln lsp: a message that is not UTF-8";
            errln!("{why}");
            match incoming {
                Incoming::Request(id, ..) => self.fail(Some(&id), ErrorCode::ParseError, why),
                Incoming::Invalid { id, .. } => self.fail(id.as_ref(), ErrorCode::ParseError, why),
                Incoming::Notification(..) | Incoming::Response => {}
            }
            return None;
        }
        match incoming {
            Incoming::Request(id, method, params) => self.request(id, &method, params),
            Incoming::Notification(method, params) => return self.notification(&method, params),
            Incoming::Response => {}
            Incoming::Invalid { id, why } => {
                self.log(&why);
                self.fail(
                    id.as_ref(),
                    ErrorCode::InvalidRequest,
                    format!("kiln lsp: {why}"),
                );
            }
        }
        None
    }

    /// A protocol problem, on stderr (the editor's log of the server).
    fn log(&self, why: &str) {
        errln!("kiln lsp: {why}");
    }

    /// Write one message (`Content-Length` framing) to stdout. A closed stdout means the
    /// editor is gone; the end of stdin ends the server.
    fn send(&self, msg: &Value) {
        let Ok(text) = serde_json::to_vec(msg) else {
            return;
        };
        let mut out = std::io::stdout().lock();
        let _ = write!(out, "Content-Length: {}\r\n\r\n", text.len())
            .and_then(|_| out.write_all(&text))
            .and_then(|_| out.flush());
    }

    fn reply(&self, id: &RequestId, result: Value) {
        self.send(&serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    /// An error response to request `id` (`null` when it could not be read).
    fn fail(&self, id: Option<&RequestId>, code: ErrorCode, message: impl Into<String>) {
        let error = serde_json::json!({"code": code as i32, "message": message.into()});
        self.send(&serde_json::json!({"jsonrpc": "2.0", "id": id, "error": error}));
    }

    fn request(&mut self, id: RequestId, method: &str, params: Option<&RawValue>) {
        let refused = match (self.state, method) {
            (State::Waiting, "initialize") => return self.initialize(id, params),
            (State::Waiting, _) => Some((
                ErrorCode::ServerNotInitialized,
                "the server is not initialized".to_string(),
            )),
            (State::Running, "initialize") => Some((
                ErrorCode::InvalidRequest,
                "`initialize` was already received".to_string(),
            )),
            (State::Running, "shutdown") => {
                self.state = State::ShutDown;
                return self.reply(&id, Value::Null);
            }
            (State::ShutDown, _) => Some((
                ErrorCode::InvalidRequest,
                format!("`{}` after `shutdown`", cut(method)),
            )),
            (State::Running, _) => None,
        };
        if let Some((code, why)) = refused {
            return self.fail(Some(&id), code, format!("kiln lsp: {why}"));
        }
        let result = match method {
            "textDocument/definition" => self.locations(params, true),
            "textDocument/references" => self.locations(params, false),
            "textDocument/hover" => self.hover(params),
            "textDocument/documentSymbol" => self.symbols(params),
            "textDocument/codeLens" => self.lenses(params),
            "textDocument/inlayHint" => self.hints(params),
            "textDocument/semanticTokens/full" => self.tokens(params),
            m => {
                let why = format!("kiln lsp: no method {}", cut(m));
                return self.fail(Some(&id), ErrorCode::MethodNotFound, why);
            }
        };
        match result {
            Ok(v) => self.reply(&id, v),
            Err(e) => self.fail(
                Some(&id),
                ErrorCode::InvalidParams,
                format!("kiln lsp: {e}"),
            ),
        }
    }

    fn initialize(&mut self, id: RequestId, params: Option<&RawValue>) {
        // Capabilities an editor does not send (or sends malformed) are the defaults.
        let params: lsp::InitializeParams = parse(params).unwrap_or_default();
        self.encoding = negotiate(&params);
        let result = lsp::InitializeResult {
            capabilities: capabilities(self.encoding),
            server_info: Some(lsp::ServerInfo {
                name: "kiln".into(),
                version: Some(kiln_daemon::server::VERSION.into()),
            }),
        };
        self.state = State::Running;
        self.reply(&id, serde_json::to_value(result).unwrap_or(Value::Null));
    }

    /// A notification; `Some(code)` for `exit`.
    fn notification(&mut self, method: &str, params: Option<&RawValue>) -> Option<i32> {
        if method == "exit" {
            return Some(self.exit_code());
        }
        if self.state != State::Running {
            return None; // dropped before `initialize`, and after `shutdown`
        }
        let done = match method {
            "textDocument/didOpen" => self.did_open(params),
            "textDocument/didChange" => self.did_change(params),
            "textDocument/didClose" => self.did_close(params),
            _ => Ok(()),
        };
        if let Err(e) = done {
            let params = lsp::LogMessageParams {
                typ: lsp::MessageType::ERROR,
                message: format!("kiln lsp: {e}"),
            };
            self.notify("window/logMessage", params);
        }
        None
    }

    fn notify(&self, method: &str, params: impl serde::Serialize) {
        let params = serde_json::to_value(params).unwrap_or(Value::Null);
        self.send(&serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn did_open(&mut self, params: Option<&RawValue>) -> Result<(), String> {
        let p: lsp::DidOpenTextDocumentParams = parse(params)?;
        let uri = p.text_document.uri;
        let path = uri_path(&uri).ok_or_else(|| format!("not a file: {}", uri.as_str()))?;
        let doc = Doc {
            path,
            version: p.text_document.version,
            text: Text::new(p.text_document.text),
        };
        self.docs.insert(uri.as_str().to_string(), doc);
        self.analyze(&uri, None)
    }

    fn did_change(&mut self, params: Option<&RawValue>) -> Result<(), String> {
        let p: lsp::DidChangeTextDocumentParams = parse(params)?;
        let uri = p.text_document.uri;
        let enc = self.encoding;
        let doc = self.doc_mut(&uri)?;
        let base = doc.version;
        let mut edits = Vec::with_capacity(p.content_changes.len());
        for c in p.content_changes {
            let range = match c.range {
                Some(r) => doc.text.bytes(r, enc),
                None => 0..doc.text.text.len(),
            };
            doc.text.replace(range.clone(), &c.text);
            edits.push(Edit {
                range,
                text: c.text,
            });
        }
        doc.version = p.text_document.version;
        self.analyze(&uri, Some(OverlayChange::Edits { base, edits }))
    }

    fn did_close(&mut self, params: Option<&RawValue>) -> Result<(), String> {
        let p: lsp::DidCloseTextDocumentParams = parse(params)?;
        let uri = p.text_document.uri;
        if let Some(doc) = self.docs.remove(uri.as_str()) {
            let mut client = self.client.clone();
            self.rt
                .block_on(client.close(&doc.path))
                .map_err(|e| e.to_string())?;
        }
        let clear = lsp::PublishDiagnosticsParams::new(uri, Vec::new(), None);
        self.notify("textDocument/publishDiagnostics", clear);
        Ok(())
    }

    fn doc(&self, uri: &lsp::Uri) -> Result<&Doc, String> {
        self.docs
            .get(uri.as_str())
            .ok_or_else(|| format!("document not open: {}", uri.as_str()))
    }

    fn doc_mut(&mut self, uri: &lsp::Uri) -> Result<&mut Doc, String> {
        self.docs
            .get_mut(uri.as_str())
            .ok_or_else(|| format!("document not open: {}", uri.as_str()))
    }

    /// Send the change (or, when the daemon has another version, the whole text) and
    /// publish the diagnostics it answers.
    fn analyze(&mut self, uri: &lsp::Uri, change: Option<OverlayChange>) -> Result<(), String> {
        let doc = self.doc(uri)?;
        let mut req = DocumentChange {
            path: doc.path.clone(),
            version: doc.version,
            change: change.unwrap_or_else(|| OverlayChange::Full(doc.text.text.clone())),
            handshake: (self.handshake)(&doc.path),
        };
        let mut client = self.client.clone();
        let mut analysis = self
            .rt
            .block_on(client.analyze(&req))
            .map_err(|e| e.to_string())?;
        if analysis.is_none() {
            req.change = OverlayChange::Full(doc.text.text.clone());
            analysis = self
                .rt
                .block_on(client.analyze(&req))
                .map_err(|e| e.to_string())?;
        }
        let analysis = analysis.ok_or("the daemon refused the document's text")?;
        // The workspace's lint levels (`[lints]` of kiln.toml), as its builds apply them.
        let applied = crate::config::get().lints().apply(analysis.messages);
        let diagnostics = applied
            .messages
            .iter()
            .map(|m| diagnostic(m, doc, uri, self.encoding))
            .collect();
        let params =
            lsp::PublishDiagnosticsParams::new(uri.clone(), diagnostics, Some(analysis.version));
        self.notify("textDocument/publishDiagnostics", params);
        Ok(())
    }

    /// The document and byte offset of a position request.
    fn at(&self, p: &lsp::TextDocumentPositionParams) -> Result<(&Doc, usize), String> {
        let doc = self.doc(&p.text_document.uri)?;
        Ok((doc, doc.text.offset(p.position, self.encoding)))
    }

    fn navigate(&self, doc: &Doc, offset: usize) -> Result<kiln_daemon::ide::Navigation, String> {
        let mut client = self.client.clone();
        let nav = self.rt.block_on(client.navigate(&doc.path, offset));
        Ok(nav.map_err(|e| e.to_string())?.unwrap_or_default())
    }

    fn locations(&mut self, params: Option<&RawValue>, definitions: bool) -> Result<Value, String> {
        let (tdp, include_decl) = match definitions {
            true => (
                parse::<lsp::GotoDefinitionParams>(params)?.text_document_position_params,
                true,
            ),
            false => {
                let p: lsp::ReferenceParams = parse(params)?;
                (p.text_document_position, p.context.include_declaration)
            }
        };
        let (doc, offset) = self.at(&tdp)?;
        let nav = self.navigate(doc, offset)?;
        let uri = tdp.text_document.uri.clone();
        let mut ranges = Vec::new();
        if include_decl {
            ranges.extend(nav.definitions.iter().cloned());
        }
        if !definitions {
            ranges.extend(nav.references.iter().cloned());
        }
        let locations: Vec<lsp::Location> = ranges
            .into_iter()
            .map(|r| lsp::Location::new(uri.clone(), doc.text.range(r, self.encoding)))
            .collect();
        Ok(serde_json::to_value(locations).unwrap_or(Value::Null))
    }

    fn hover(&mut self, params: Option<&RawValue>) -> Result<Value, String> {
        let p: lsp::HoverParams = parse(params)?;
        let (doc, offset) = self.at(&p.text_document_position_params)?;
        let Some(h) = self.navigate(doc, offset)?.hover else {
            return Ok(Value::Null);
        };
        let hover = lsp::Hover {
            contents: lsp::HoverContents::Markup(lsp::MarkupContent {
                kind: lsp::MarkupKind::Markdown,
                value: h.markdown,
            }),
            range: Some(doc.text.range(h.range, self.encoding)),
        };
        Ok(serde_json::to_value(hover).unwrap_or(Value::Null))
    }

    fn outline(&self, uri: &lsp::Uri) -> Result<(&Doc, kiln_daemon::ide::Outline), String> {
        let doc = self.doc(uri)?;
        let mut client = self.client.clone();
        let o = self.rt.block_on(client.outline(&doc.path));
        Ok((doc, o.map_err(|e| e.to_string())?.unwrap_or_default()))
    }

    fn symbols(&mut self, params: Option<&RawValue>) -> Result<Value, String> {
        let p: lsp::DocumentSymbolParams = parse(params)?;
        let (doc, o) = self.outline(&p.text_document.uri)?;
        let symbols: Vec<lsp::DocumentSymbol> = o
            .items
            .iter()
            .map(|i| symbol(i, doc, self.encoding))
            .collect();
        Ok(serde_json::to_value(symbols).unwrap_or(Value::Null))
    }

    fn lenses(&mut self, params: Option<&RawValue>) -> Result<Value, String> {
        let p: lsp::CodeLensParams = parse(params)?;
        let (doc, o) = self.outline(&p.text_document.uri)?;
        let lenses: Vec<lsp::CodeLens> = o
            .lenses
            .iter()
            .map(|l| lsp::CodeLens {
                range: doc.text.range(l.range.clone(), self.encoding),
                command: Some(lsp::Command::new(l.title.clone(), String::new(), None)),
                data: None,
            })
            .collect();
        Ok(serde_json::to_value(lenses).unwrap_or(Value::Null))
    }
}

impl Server {
    /// Semantic tokens of the whole document (lexical: MLIR, or BLIF by content), in the
    /// protocol's relative encoding.
    fn tokens(&mut self, params: Option<&RawValue>) -> Result<Value, String> {
        let p: lsp::SemanticTokensParams = parse(params)?;
        let doc = self.doc(&p.text_document.uri)?;
        let text = &doc.text.text;
        let tokens = match compiler::flow::reads_as_blif(&doc.path, text) {
            true => compiler::highlight::blif(text),
            false => compiler::highlight::mlir(text),
        };
        let order = compiler::highlight::TokenType::ALL;
        let (mut line, mut col) = (0, 0);
        let mut data = Vec::with_capacity(tokens.len());
        for t in tokens {
            let from = doc.text.position(t.start, self.encoding);
            let to = doc.text.position(t.start + t.len, self.encoding);
            if to.line != from.line {
                continue;
            }
            let delta_start = match from.line == line {
                true => from.character - col,
                false => from.character,
            };
            data.push(lsp::SemanticToken {
                delta_line: from.line - line,
                delta_start,
                length: to.character - from.character,
                token_type: order.iter().position(|k| *k == t.kind).unwrap_or(0) as u32,
                token_modifiers_bitset: 0,
            });
            (line, col) = (from.line, from.character);
        }
        let tokens = lsp::SemanticTokens {
            result_id: None,
            data,
        };
        Ok(serde_json::to_value(tokens).unwrap_or(Value::Null))
    }

    /// The schedule as inlay hints in the requested range: per APS op its cycles and slot,
    /// per `tor.for` its slots per iteration.
    fn hints(&mut self, params: Option<&RawValue>) -> Result<Value, String> {
        let p: lsp::InlayHintParams = parse(params)?;
        let (doc, o) = self.outline(&p.text_document.uri)?;
        let from = doc.text.offset(p.range.start, self.encoding);
        let to = doc.text.offset(p.range.end, self.encoding);
        let hints: Vec<lsp::InlayHint> = o
            .hints
            .iter()
            .filter(|h| (from..=to).contains(&h.at))
            .map(|h| lsp::InlayHint {
                position: doc.text.position(h.at, self.encoding),
                label: lsp::InlayHintLabel::String(h.label.clone()),
                kind: None,
                text_edits: None,
                tooltip: Some(lsp::InlayHintTooltip::String(h.tooltip.clone())),
                padding_left: Some(true),
                padding_right: None,
                data: None,
            })
            .collect();
        Ok(serde_json::to_value(hints).unwrap_or(Value::Null))
    }
}

/// A message's `params` (absent: `null`) as the type its method takes.
fn parse<T: serde::de::DeserializeOwned>(params: Option<&RawValue>) -> Result<T, String> {
    serde_json::from_str(params.map_or("null", RawValue::get))
        .map_err(|e| format!("bad parameters: {e}"))
}

#[allow(deprecated)] // `DocumentSymbol::deprecated` must be set, to `None`.
fn symbol(item: &kiln_daemon::ide::OutlineItem, doc: &Doc, enc: Encoding) -> lsp::DocumentSymbol {
    use kiln_daemon::ide::OutlineKind;
    let kind = match item.kind {
        OutlineKind::Function => lsp::SymbolKind::FUNCTION,
        OutlineKind::Block => lsp::SymbolKind::NAMESPACE,
        OutlineKind::Loop => lsp::SymbolKind::OPERATOR,
        OutlineKind::Model => lsp::SymbolKind::MODULE,
    };
    lsp::DocumentSymbol {
        name: item.name.clone(),
        detail: None,
        kind,
        tags: None,
        deprecated: None,
        range: doc.text.range(item.range.clone(), enc),
        selection_range: doc.text.range(item.selection.clone(), enc),
        children: Some(item.children.iter().map(|c| symbol(c, doc, enc)).collect()),
    }
}

/// A build's message as an editor's diagnostic: the one conversion. Same message, code
/// and severity as `kiln build` prints; the range is the message's bytes in the document;
/// notes and related places become related information.
fn diagnostic(m: &Located, doc: &Doc, uri: &lsp::Uri, enc: Encoding) -> lsp::Diagnostic {
    let range = |m: &Located| match &m.at {
        Some(at) => {
            let line = lsp::Position::new(at.line.saturating_sub(1) as u32, 0);
            let start = doc.text.offset(line, Encoding::Utf8) + at.byte_col;
            doc.text.range(start..start + at.len, enc)
        }
        None => lsp::Range::default(),
    };
    let own = range(m);
    let mut related: Vec<lsp::DiagnosticRelatedInformation> = m
        .related
        .iter()
        .map(|r| lsp::DiagnosticRelatedInformation {
            location: lsp::Location::new(uri.clone(), range(r)),
            message: r.message.clone(),
        })
        .collect();
    related.extend(m.notes.iter().map(|n| lsp::DiagnosticRelatedInformation {
        location: lsp::Location::new(uri.clone(), own),
        message: format!("note: {n}"),
    }));
    lsp::Diagnostic {
        range: own,
        severity: Some(match m.severity {
            Severity::Error => lsp::DiagnosticSeverity::ERROR,
            Severity::Warning => lsp::DiagnosticSeverity::WARNING,
            Severity::Note => lsp::DiagnosticSeverity::INFORMATION,
        }),
        code: m
            .code
            .map(|c| lsp::NumberOrString::String(c.as_str().to_string())),
        source: Some("kiln".into()),
        message: m.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        ..Default::default()
    }
}

/// The path of a `file:` URI (percent-decoded).
pub fn uri_path(uri: &lsp::Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).and_then(|&b| hex(b)),
                bytes.get(i + 2).and_then(|&b| hex(b)),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `file:` URI of an absolute path (percent-encoded): [`uri_path`]'s inverse.
    fn path_uri(path: &Path) -> Option<lsp::Uri> {
        use std::os::unix::ffi::OsStrExt;
        use std::str::FromStr;
        let mut s = String::from("file://");
        for &b in path.as_os_str().as_bytes() {
            match b {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'/' | b'-' | b'.' | b'_' | b'~' => {
                    s.push(b as char)
                }
                _ => s.push_str(&format!("%{b:02X}")),
            }
        }
        lsp::Uri::from_str(&s).ok()
    }

    #[test]
    fn uris_and_paths_round_trip() {
        let p = Path::new("/tmp/a b/é#1.mlir");
        let uri = path_uri(p).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/a%20b/%C3%A9%231.mlir");
        assert_eq!(uri_path(&uri).unwrap(), p);
    }
}
