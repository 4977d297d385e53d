//! The bottom of confvet: what a linted file is made of, known to every
//! layer above and knowing none of them.
//!
//! * [`source`]: files read through one file layer, byte spans, line
//!   indexes;
//! * [`yaml`]: confvet's own YAML tree with spans, comments and ytt
//!   annotations, scalars resolved as go-yaml v2 resolves them, and the
//!   emitter that writes YAML as ytt writes it;
//! * [`edit`]: fixes as byte-range edits, with how safe each is;
//! * [`uri`]: `file://` URIs of paths (the editor's documents, SARIF);
//! * [`suggest`]: did-you-mean among names.
//!
//! Nothing here knows rules or findings: a YAML parse error says what kind
//! of error it is, and the layer above names its rule.

pub mod edit;
pub mod source;
pub mod suggest;
pub mod uri;
pub mod yaml;
