//! The corpora of ../shared/corpus: real ytt packages, KubeVirt templates
//! and Tekton repositories, each with what the reference tools printed or
//! what its README says confvet must report.

mod cache;
#[path = "../common/mod.rs"]
mod common;
mod fixes;
mod kubernetes;
mod kubevirt;
mod renders;
mod schema_agreement;
mod schema_export;
mod tekton;
#[path = "../tekton_support/mod.rs"]
mod tekton_support;
mod ytt;
