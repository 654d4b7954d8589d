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

pub mod text;

use crate::io::Failure;
use compiler::diag::{Located, Severity};
use kiln_daemon::inputs::{Edit, OverlayChange};
use kiln_daemon::rpc::{Client, DocumentChange};
use kiln_daemon::spec::HandshakeSpec;
use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use lsp_types as lsp;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use text::{Encoding, Text};

/// Handshake options for a document at a path (the library resolved like `kiln build`).
pub type HandshakeFor = Box<dyn Fn(&Path) -> HandshakeSpec>;

/// Serve on stdin/stdout until the editor says `exit`.
pub fn run(handshake: HandshakeFor) -> Result<(), Failure> {
    let (conn, io) = Connection::stdio();
    let rt = crate::daemon_client::runtime()?;
    let connector = crate::daemon_client::connector()?;
    let client = rt
        .block_on(connector.ensure())
        .map_err(crate::daemon_client::fail)?;
    let (id, params) = conn.initialize_start().map_err(protocol)?;
    let params: lsp::InitializeParams = serde_json::from_value(params).unwrap_or_default();
    let encoding = negotiate(&params);
    let result = lsp::InitializeResult {
        capabilities: capabilities(encoding),
        server_info: Some(lsp::ServerInfo {
            name: "kiln".into(),
            version: Some(kiln_daemon::server::VERSION.into()),
        }),
    };
    let result = serde_json::to_value(result).map_err(crate::daemon_client::fail)?;
    conn.initialize_finish(id, result).map_err(protocol)?;
    let mut server = Server {
        conn,
        rt,
        client,
        docs: HashMap::new(),
        encoding,
        handshake,
    };
    server.serve()?;
    // The stdout writer ends with the connection; the stdin reader is not waited for (an
    // editor may keep the pipe open after `exit`): the process ends here.
    drop(server);
    drop(io);
    Ok(())
}

fn protocol(e: lsp_server::ProtocolError) -> Failure {
    Failure::input(format!("kiln lsp: {e}"))
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
    conn: Connection,
    rt: tokio::runtime::Runtime,
    client: Client,
    docs: HashMap<String, Doc>,
    encoding: Encoding,
    handshake: HandshakeFor,
}

impl Server {
    fn serve(&mut self) -> Result<(), Failure> {
        while let Ok(msg) = self.conn.receiver.recv() {
            match msg {
                Message::Request(req) => {
                    if self.conn.handle_shutdown(&req).map_err(protocol)? {
                        return Ok(());
                    }
                    let resp = self.request(req);
                    self.send(resp.into());
                }
                Message::Notification(n) if n.method == "exit" => return Ok(()),
                Message::Notification(n) => self.notification(n),
                Message::Response(_) => {}
            }
        }
        Ok(())
    }

    fn send(&self, msg: Message) {
        let _ = self.conn.sender.send(msg);
    }

    fn request(&mut self, req: Request) -> Response {
        let id = req.id.clone();
        let result = match req.method.as_str() {
            "textDocument/definition" => self.locations(req.params, true),
            "textDocument/references" => self.locations(req.params, false),
            "textDocument/hover" => self.hover(req.params),
            "textDocument/documentSymbol" => self.symbols(req.params),
            "textDocument/codeLens" => self.lenses(req.params),
            m => {
                let code = lsp_server::ErrorCode::MethodNotFound as i32;
                return Response::new_err(id, code, format!("kiln lsp: no method {m}"));
            }
        };
        match result {
            Ok(v) => Response::new_ok(id, v),
            Err(e) => error(id, e),
        }
    }

    fn notification(&mut self, n: Notification) {
        let done = match n.method.as_str() {
            "textDocument/didOpen" => self.did_open(n.params),
            "textDocument/didChange" => self.did_change(n.params),
            "textDocument/didClose" => self.did_close(n.params),
            _ => Ok(()),
        };
        if let Err(e) = done {
            let params = lsp::LogMessageParams {
                typ: lsp::MessageType::ERROR,
                message: format!("kiln lsp: {e}"),
            };
            self.notify("window/logMessage", params);
        }
    }

    fn notify(&self, method: &str, params: impl serde::Serialize) {
        let params = serde_json::to_value(params).unwrap_or(Value::Null);
        self.send(Notification::new(method.to_string(), params).into());
    }

    fn did_open(&mut self, params: Value) -> Result<(), String> {
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

    fn did_change(&mut self, params: Value) -> Result<(), String> {
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

    fn did_close(&mut self, params: Value) -> Result<(), String> {
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
        let diagnostics = analysis
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

    fn locations(&mut self, params: Value, definitions: bool) -> Result<Value, String> {
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

    fn hover(&mut self, params: Value) -> Result<Value, String> {
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

    fn symbols(&mut self, params: Value) -> Result<Value, String> {
        let p: lsp::DocumentSymbolParams = parse(params)?;
        let (doc, o) = self.outline(&p.text_document.uri)?;
        let symbols: Vec<lsp::DocumentSymbol> = o
            .items
            .iter()
            .map(|i| symbol(i, doc, self.encoding))
            .collect();
        Ok(serde_json::to_value(symbols).unwrap_or(Value::Null))
    }

    fn lenses(&mut self, params: Value) -> Result<Value, String> {
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

fn parse<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, String> {
    serde_json::from_value(v).map_err(|e| format!("bad parameters: {e}"))
}

fn error(id: RequestId, message: String) -> Response {
    Response::new_err(id, lsp_server::ErrorCode::InvalidParams as i32, message)
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

/// The `file:` URI of an absolute path (percent-encoded).
pub fn path_uri(path: &Path) -> Option<lsp::Uri> {
    use std::os::unix::ffi::OsStrExt;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_and_paths_round_trip() {
        let p = Path::new("/tmp/a b/é#1.mlir");
        let uri = path_uri(p).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/a%20b/%C3%A9%231.mlir");
        assert_eq!(uri_path(&uri).unwrap(), p);
    }
}
