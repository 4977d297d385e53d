//! Shared findings for emitter snapshots (stub).
