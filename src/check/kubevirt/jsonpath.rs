//! The validator's JSONPath dialect (client-go JSONPath rooted at the VM's
//! `spec.template`) and its evaluation over the typed view of spec §4.2/§4.3.

use crate::source::Span;
use crate::yaml::{Node, Value};

#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Field(String),
    Wildcard,
    Index(i64),
    Slice(Option<i64>, Option<i64>),
}

/// Why a path does not compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("recursive descent `..` is not supported")]
    RecursiveDescent,
    #[error("unexpected `{0}` after `.`")]
    AfterDot(char),
    #[error("unterminated array notation")]
    Unterminated,
    #[error("filters are not supported")]
    Filter,
    #[error("invalid array index {0}")]
    SliceBound(String),
    #[error("invalid array index `{0}`")]
    Index(String),
    #[error("unrecognized character `{0}` in path")]
    Character(char),
}

/// Compile the text after `jsonpath::` (and an optional `$`).
pub fn compile(e: &str) -> Result<Vec<Step>, PathError> {
    let c: Vec<char> = e.chars().collect();
    let mut i = 0;
    let mut steps = Vec::new();
    while i < c.len() {
        match c[i] {
            '.' => {
                i += 1;
                if c.get(i) == Some(&'.') {
                    return Err(PathError::RecursiveDescent);
                }
                let mut name = String::new();
                while i < c.len() {
                    let ch = c[i];
                    if ch == '\\' && i + 1 < c.len() {
                        name.push(c[i + 1]);
                        i += 2;
                        continue;
                    }
                    if matches!(ch, '.' | '[' | ']' | ',' | '{' | '}' | '$' | '@' | ' ') {
                        break;
                    }
                    name.push(ch);
                    i += 1;
                }
                if name.is_empty() {
                    if i >= c.len() {
                        // A trailing `.` selects the current value.
                        continue;
                    }
                    return Err(PathError::AfterDot(c[i]));
                }
                steps.push(Step::Field(name));
            }
            '[' => {
                let close = c[i..]
                    .iter()
                    .position(|&x| x == ']')
                    .ok_or(PathError::Unterminated)?;
                let inner: String = c[i + 1..i + close].iter().collect();
                i += close + 1;
                let inner = inner.trim();
                if inner == "*" {
                    steps.push(Step::Wildcard);
                } else if (inner.starts_with('\'') && inner.ends_with('\'') && inner.len() >= 2)
                    || (inner.starts_with('"') && inner.ends_with('"') && inner.len() >= 2)
                {
                    steps.push(Step::Field(inner[1..inner.len() - 1].to_string()));
                } else if inner.starts_with('?') {
                    return Err(PathError::Filter);
                } else if let Some((a, b)) = inner.split_once(':') {
                    let b = b.split(':').next().unwrap_or("");
                    let parse = |s: &str| {
                        let s = s.trim();
                        if s.is_empty() {
                            Ok(None)
                        } else {
                            s.parse()
                                .map(Some)
                                .map_err(|_| PathError::SliceBound(s.to_string()))
                        }
                    };
                    steps.push(Step::Slice(parse(a)?, parse(b)?));
                } else if let Ok(n) = inner.parse::<i64>() {
                    steps.push(Step::Index(n));
                } else {
                    return Err(PathError::Index(inner.to_string()));
                }
            }
            ch => return Err(PathError::Character(ch)),
        }
    }
    Ok(steps)
}

/// Types of the objects under `spec.template` (Appendix A).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum T {
    Template,
    Meta,
    Vmi,
    Volume,
    Network,
    Domain,
    Resources,
    Cpu,
    Memory,
    Hugepages,
    Machine,
    Firmware,
    Bootloader,
    Bios,
    Efi,
    Devices,
    Disk,
    DiskTarget,
    Lun,
    Cdrom,
    Interface,
    Port,
    Input,
    Features,
    Acpi,
    Clock,
    Opaque,
    StrMap,
    QMap,
}

/// Go kind of a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum K {
    S(T),
    O(T),
    L(T),
    M(T),
    Str,
    Int,
    Bool,
    OInt,
    OStr,
    OBool,
    Q,
    OQ,
    /// Not in the table: followed as written.
    Any,
}

impl K {
    fn optional(self) -> bool {
        matches!(self, K::O(_) | K::OInt | K::OStr | K::OBool | K::OQ)
    }
}

fn field(t: T, f: &str) -> Option<K> {
    use K::*;
    Some(match (t, f) {
        (T::Template, "metadata") => S(T::Meta),
        (T::Template, "spec") => S(T::Vmi),
        (T::Meta, "name" | "namespace" | "generateName") => Str,
        (T::Meta, "labels" | "annotations") => M(T::StrMap),
        (T::Vmi, "domain") => S(T::Domain),
        (T::Vmi, "volumes") => L(T::Volume),
        (T::Vmi, "networks") => L(T::Network),
        (
            T::Vmi,
            "hostname" | "subdomain" | "priorityClassName" | "schedulerName" | "dnsPolicy"
            | "architecture",
        ) => Str,
        (T::Vmi, "nodeSelector") => M(T::StrMap),
        (T::Vmi, "terminationGracePeriodSeconds") => OInt,
        (T::Vmi, "evictionStrategy" | "startStrategy") => OStr,
        (T::Vmi, "affinity" | "livenessProbe" | "readinessProbe" | "dnsConfig") => O(T::Opaque),
        (
            T::Vmi,
            "tolerations"
            | "topologySpreadConstraints"
            | "accessCredentials"
            | "resourceClaims"
            | "utilityVolumes",
        ) => L(T::Opaque),
        (T::Volume | T::Network, "name") => Str,
        (
            T::Volume,
            "containerDisk"
            | "persistentVolumeClaim"
            | "dataVolume"
            | "cloudInitNoCloud"
            | "cloudInitConfigDrive"
            | "emptyDisk"
            | "ephemeral"
            | "hostDisk"
            | "configMap"
            | "secret"
            | "serviceAccount"
            | "sysprep"
            | "downwardAPI"
            | "downwardMetrics"
            | "memoryDump",
        ) => O(T::Opaque),
        (T::Network, "pod" | "multus") => O(T::Opaque),
        (T::Domain, "resources") => S(T::Resources),
        (T::Domain, "devices") => S(T::Devices),
        (T::Domain, "cpu") => O(T::Cpu),
        (T::Domain, "memory") => O(T::Memory),
        (T::Domain, "machine") => O(T::Machine),
        (T::Domain, "firmware") => O(T::Firmware),
        (T::Domain, "clock") => O(T::Clock),
        (T::Domain, "features") => O(T::Features),
        (T::Domain, "ioThreadsPolicy" | "rebootPolicy") => OStr,
        (T::Domain, "ioThreads" | "chassis" | "launchSecurity") => O(T::Opaque),
        (T::Resources, "requests" | "limits") => M(T::QMap),
        (T::Resources, "overcommitGuestOverhead") => Bool,
        (T::Cpu, "cores" | "sockets" | "threads" | "maxSockets") => Int,
        (T::Cpu, "model") => Str,
        (T::Cpu, "dedicatedCpuPlacement" | "isolateEmulatorThread") => Bool,
        (T::Cpu, "features") => L(T::Opaque),
        (T::Cpu, "numa" | "realtime") => O(T::Opaque),
        (T::Memory, "guest" | "maxGuest") => OQ,
        (T::Memory, "hugepages") => O(T::Hugepages),
        (T::Memory, "reservedOverhead") => O(T::Opaque),
        (T::Hugepages, "pageSize") => Str,
        (T::Machine, "type") => Str,
        (T::Firmware, "uuid" | "serial") => Str,
        (T::Firmware, "bootloader") => O(T::Bootloader),
        (T::Firmware, "kernelBoot" | "acpi") => O(T::Opaque),
        (T::Bootloader, "bios") => O(T::Bios),
        (T::Bootloader, "efi") => O(T::Efi),
        (T::Bios, "useSerial") => OBool,
        (T::Efi, "secureBoot" | "persistent") => OBool,
        (T::Devices, "disks") => L(T::Disk),
        (T::Devices, "interfaces") => L(T::Interface),
        (T::Devices, "inputs") => L(T::Input),
        (T::Devices, "disableHotplug") => Bool,
        (T::Devices, "gpus" | "panicDevices" | "filesystems" | "hostDevices") => L(T::Opaque),
        (
            T::Devices,
            "watchdog" | "rng" | "downwardMetrics" | "clientPassthrough" | "sound" | "tpm"
            | "video",
        ) => O(T::Opaque),
        (
            T::Devices,
            "useVirtioTransitional"
            | "autoattachPodInterface"
            | "autoattachGraphicsDevice"
            | "autoattachSerialConsole"
            | "logSerialConsole"
            | "autoattachMemBalloon"
            | "autoattachInputDevice"
            | "autoattachVSOCK"
            | "blockMultiQueue"
            | "networkInterfaceMultiqueue",
        ) => OBool,
        (T::Disk, "name" | "serial" | "cache" | "io" | "tag") => Str,
        (T::Disk, "disk") => O(T::DiskTarget),
        (T::Disk, "lun") => O(T::Lun),
        (T::Disk, "cdrom") => O(T::Cdrom),
        (T::Disk, "bootOrder") => OInt,
        (T::Disk, "dedicatedIOThread" | "shareable" | "changedBlockTracking") => OBool,
        (T::Disk, "errorPolicy") => OStr,
        (T::Disk, "blockSize") => O(T::Opaque),
        (T::DiskTarget, "bus" | "pciAddress") => Str,
        (T::DiskTarget, "readonly") => Bool,
        (T::Lun, "bus") => Str,
        (T::Lun, "readonly" | "reservation") => Bool,
        (T::Cdrom, "bus" | "tray") => Str,
        (T::Cdrom, "readonly") => OBool,
        (T::Interface, "name" | "model" | "macAddress" | "pciAddress" | "tag" | "state") => Str,
        (T::Interface, "acpiIndex") => Int,
        (T::Interface, "ports") => L(T::Port),
        (T::Interface, "bootOrder") => OInt,
        (
            T::Interface,
            "bridge" | "masquerade" | "sriov" | "slirp" | "macvtap" | "passt" | "passtBinding"
            | "binding" | "dhcpOptions",
        ) => O(T::Opaque),
        (T::Port, "name" | "protocol") => Str,
        (T::Port, "port") => Int,
        (T::Input, "bus" | "type" | "name") => Str,
        (T::Features, "acpi") => S(T::Acpi),
        (T::Features, "apic" | "hypervPassthrough" | "hyperv" | "smm" | "kvm" | "pvspinlock") => {
            O(T::Opaque)
        }
        (T::Acpi, "enabled") => OBool,
        (T::Clock, "utc" | "timer") => O(T::Opaque),
        (T::Clock, "timezone") => OStr,
        _ => return None,
    })
}

/// One node of the typed view: a manifest node or a virtual one.
#[derive(Debug, Clone)]
pub struct V<'a> {
    pub node: Option<&'a Node>,
    pub kind: K,
    /// The line anchor: the value's key or item, or its nearest existing ancestor.
    pub anchor: Span,
    pub in_domain: bool,
    /// cores/sockets/threads of an existing cpu object (spec §4.4).
    pub cpu_default: bool,
    /// A node of the reference VM (§4.3).
    pub reference: bool,
    /// What KubeVirt's defaulting puts in this zero value of the reference VM.
    pub default_text: Option<&'static str>,
}

impl V<'_> {
    /// An absent optional value (Go nil pointer).
    pub fn absent(&self) -> bool {
        self.node.is_none() && self.kind.optional() && !(self.reference && self.in_domain)
    }
}

/// The outcome of evaluating a path.
pub struct Outcome<'a> {
    /// None: "not found".
    pub values: Option<Vec<V<'a>>>,
    /// The last existing node the evaluation reached.
    pub last: Span,
}

fn non_null(n: &Node) -> Option<&Node> {
    if n.is_null() { None } else { Some(n) }
}

fn member<'a>(node: Option<&'a Node>, f: &str) -> Option<(&'a Node, Span)> {
    match &node?.value {
        Value::Map(items) => items
            .iter()
            .rev()
            .find(|i| i.key.text == f)
            .and_then(|i| non_null(&i.value).map(|n| (n, i.key_span))),
        _ => None,
    }
}

fn list_len(t: T) -> usize {
    if t == T::Port { 16 } else { 64 }
}

fn step<'a>(input: &V<'a>, s: &Step, out: &mut Vec<V<'a>>) {
    if input.absent() {
        return;
    }
    match s {
        Step::Field(f) => {
            let in_domain = input.in_domain || matches!(input.kind, K::S(T::Domain));
            match input.kind {
                K::S(t) | K::O(t) if t != T::Opaque => {
                    let known = field(t, f);
                    let cpu_default = !input.reference
                        && t == T::Cpu
                        && matches!(f.as_str(), "cores" | "sockets" | "threads");
                    if let Some((n, span)) = member(input.node, f) {
                        out.push(V {
                            node: Some(n),
                            kind: known.unwrap_or(K::Any),
                            anchor: span,
                            in_domain,
                            cpu_default,
                            reference: input.reference,
                            default_text: None,
                        });
                    } else if let Some(k) = known {
                        let default_text = match (t, f.as_str()) {
                            _ if !input.reference => None,
                            (T::Cdrom, "tray") => Some("closed"),
                            (T::Firmware, "uuid") => Some("5d307ca9-b3ef-428c-8861-06e72d69f223"),
                            _ => None,
                        };
                        out.push(V {
                            node: None,
                            kind: k,
                            anchor: input.anchor,
                            in_domain,
                            cpu_default,
                            reference: input.reference,
                            default_text,
                        });
                    }
                }
                K::M(t) => {
                    if let Some((n, span)) = member(input.node, f) {
                        out.push(V {
                            node: Some(n),
                            kind: if t == T::QMap { K::Q } else { K::Str },
                            anchor: span,
                            in_domain,
                            cpu_default: false,
                            reference: input.reference,
                            default_text: None,
                        });
                    }
                }
                K::S(_) | K::O(_) | K::Any => {
                    if let Some((n, span)) = member(input.node, f) {
                        out.push(V {
                            node: Some(n),
                            kind: K::Any,
                            anchor: span,
                            in_domain,
                            cpu_default: false,
                            reference: input.reference,
                            default_text: None,
                        });
                    }
                }
                _ => {}
            }
        }
        _ => {
            let item_kind = match input.kind {
                K::L(T::Opaque) | K::Any => K::Any,
                K::L(t) => K::S(t),
                _ => return,
            };
            let items: Vec<V<'a>> = match input.node.map(|n| &n.value) {
                Some(Value::Array(items)) => items
                    .iter()
                    .filter_map(|i| {
                        Some(V {
                            node: Some(non_null(&i.value)?),
                            kind: item_kind,
                            anchor: i.span,
                            in_domain: input.in_domain,
                            cpu_default: false,
                            reference: input.reference,
                            default_text: None,
                        })
                    })
                    .collect(),
                None if input.reference && input.in_domain => {
                    let n = match input.kind {
                        K::L(t) => list_len(t),
                        _ => 0,
                    };
                    vec![
                        V {
                            node: None,
                            kind: item_kind,
                            anchor: input.anchor,
                            in_domain: true,
                            cpu_default: false,
                            reference: true,
                            default_text: None,
                        };
                        n
                    ]
                }
                None => Vec::new(),
                Some(_) => return,
            };
            let len = items.len() as i64;
            let norm = |i: i64| if i < 0 { i + len } else { i };
            match s {
                Step::Wildcard => out.extend(items),
                Step::Index(n) => {
                    let i = norm(*n);
                    if (0..len).contains(&i) {
                        out.push(items[i as usize].clone());
                    }
                }
                Step::Slice(a, b) => {
                    let a = norm(a.unwrap_or(0)).clamp(0, len);
                    let b = norm(b.unwrap_or(len)).clamp(0, len);
                    if a < b {
                        out.extend(items[a as usize..b as usize].iter().cloned());
                    }
                }
                Step::Field(_) => {}
            }
        }
    }
}

/// Evaluate `steps` from `root`.
pub fn eval<'a>(root: V<'a>, steps: &[Step]) -> Outcome<'a> {
    let mut last = root.anchor;
    let mut cur = vec![root];
    for s in steps {
        let mut out = Vec::new();
        for v in &cur {
            step(v, s, &mut out);
        }
        // `[*]` (or a slice) over an empty list yields nothing without error.
        let fan_out_over_list = matches!(s, Step::Wildcard | Step::Slice(..))
            && cur.iter().any(|v| {
                matches!(v.kind, K::L(_))
                    || matches!(v.node.map(|n| &n.value), Some(Value::Array(_)))
            });
        if out.is_empty() && !cur.is_empty() && !fan_out_over_list {
            return Outcome { values: None, last };
        }
        if let Some(first) = out.first() {
            last = first.anchor;
        }
        cur = out;
    }
    Outcome {
        values: Some(cur),
        last,
    }
}

/// Evaluate on the VM, then on the reference VM if not found there.
pub fn eval_with_ref<'a>(root: &V<'a>, steps: &[Step]) -> Outcome<'a> {
    let on_vm = eval(root.clone(), steps);
    if on_vm.values.is_some() {
        return on_vm;
    }
    let reference = V {
        node: None,
        kind: K::S(T::Template),
        anchor: root.anchor,
        in_domain: false,
        cpu_default: false,
        reference: true,
        default_text: None,
    };
    let on_ref = eval(reference, steps);
    Outcome {
        values: on_ref.values.map(|vs| {
            vs.into_iter()
                .map(|mut v| {
                    v.anchor = on_vm.last;
                    v
                })
                .collect()
        }),
        last: on_vm.last,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_compile() {
        assert_eq!(
            compile(".spec.domain.devices.disks[*].disk.bus")
                .unwrap()
                .len(),
            7
        );
        assert_eq!(
            compile(".metadata.labels.kubevirt\\.io/domain").unwrap()[2],
            Step::Field("kubevirt.io/domain".into())
        );
        assert_eq!(compile("['a'][-1][1:2]").unwrap().len(), 3);
        assert!(compile(".a[").is_err());
        assert!(compile(".a[x]").is_err());
    }
}
