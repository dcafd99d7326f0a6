//! What on this machine can run a harness: the CUDA driver (is `libcuda.so.1` loadable?) and the
//! OpenCL platforms and devices (through `opencl3`, which loads `libOpenCL.so.1` at run time, so
//! the binary builds and starts without any OpenCL installed).
//!
//! Owns: `cuda_driver`, `opencl` (→ `OpenCl`: no library, no platform, or the devices with what
//! the harness needs of each: name, kind, compute units, largest work-group, and the
//! `-cl-std=` its OpenCL C supports), `render` (the lines `gpu run` prints first).
//!
//! Discovery is one thread at a time (`DISCOVERY`), because of PoCL; see there.
use std::ffi::CStr;
use std::fmt::Write as _;
use std::sync::{Mutex, PoisonError};

use opencl3::device::{
    Device as ClDevice, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU,
    CL_DEVICE_TYPE_GPU,
};
use opencl3::error_codes::DLOPEN_RUNTIME_LOAD_FAILED;
use opencl3::platform::get_platforms;
use opencl3::types::cl_device_id;

/// The CUDA driver library a host would load.
pub(crate) const CUDA_DRIVER: &CStr = c"libcuda.so.1";

/// Can the CUDA driver library be loaded?
pub(crate) fn cuda_driver() -> bool {
    // SAFETY: dlopen with a valid C string; the handle is closed at once and no symbol is used.
    unsafe {
        let handle = libc::dlopen(CUDA_DRIVER.as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL);
        if handle.is_null() {
            return false;
        }
        libc::dlclose(handle);
        true
    }
}

/// An OpenCL device and what the harness needs of it.
#[derive(Clone, Debug)]
pub struct Device {
    pub(crate) platform: String,
    pub(crate) platform_version: String,
    /// The device's name as OpenCL reports it, trimmed.
    pub name: String,
    /// GPU, CPU, accelerator or other.
    pub(crate) kind: &'static str,
    pub(crate) compute_units: u32,
    pub(crate) max_workgroup_size: u32,
    /// `CL3.0` or `CL2.0` (atomics with memory order and scope), or `None` for OpenCL C 1.x.
    pub(crate) cl_std: Option<&'static str>,
    pub(crate) id: cl_device_id,
}

/// What OpenCL offers here.
#[derive(Clone, Debug)]
pub enum OpenCl {
    /// `libOpenCL.so.1` (the ICD loader) cannot be loaded.
    NoLibrary,
    /// The loader found no platform (no ICD installed), or a platform listed no device.
    NoPlatform(String),
    /// The devices found, over all platforms.
    Devices(Vec<Device>),
}

impl OpenCl {
    /// Why nothing can run, or `None` if some device can.
    pub fn unavailable(&self) -> Option<String> {
        match self {
            OpenCl::NoLibrary => Some(
                "no OpenCL: libOpenCL.so.1 cannot be loaded (Debian: apt-get install ocl-icd-libopencl1 pocl-opencl-icd)".into(),
            ),
            OpenCl::NoPlatform(why) => Some(format!(
                "no OpenCL platform: {why} (a CPU platform: apt-get install pocl-opencl-icd)"
            )),
            OpenCl::Devices(ds) if ds.is_empty() => Some("no OpenCL device".into()),
            OpenCl::Devices(_) => None,
        }
    }
}

/// Held while the platforms and devices are listed and queried.
///
/// PoCL (3.1, the CI device) initialises its devices inside the first `clGetDeviceIDs` of the
/// process, under its init lock; but a second thread calling it meanwhile does not wait: PoCL's
/// guard against hwloc re-entering it (`init_in_progress`) is read before the lock, so that call
/// returns at once, with the device list still being filled in — no device at all, or a device
/// whose name is still a null pointer, which the next `clGetDeviceInfo(CL_DEVICE_NAME)` passes to
/// `strlen` (SIGSEGV; issue 10, where two test threads discovered the device at once). Any
/// thread's discovery therefore waits for the one in progress; once one has finished, PoCL is
/// initialised for the rest of the process, and the device ids it gave out are complete.
static DISCOVERY: Mutex<()> = Mutex::new(());

/// The OpenCL platforms and their devices.
pub fn opencl() -> OpenCl {
    // A panic inside discovery leaves nothing half-done on our side: the lock guards PoCL's
    // initialisation, not data of ours, so a poisoned lock is still good to take.
    let _one_at_a_time = DISCOVERY.lock().unwrap_or_else(PoisonError::into_inner);
    discover()
}

fn discover() -> OpenCl {
    let platforms = match get_platforms() {
        Ok(p) if p.is_empty() => return OpenCl::NoPlatform("the ICD loader lists none".into()),
        Ok(p) => p,
        Err(e) if e.0 == DLOPEN_RUNTIME_LOAD_FAILED => return OpenCl::NoLibrary,
        Err(e) => return OpenCl::NoPlatform(format!("clGetPlatformIDs failed: {e}")),
    };
    let mut devices = vec![];
    for p in &platforms {
        let name = p.name().unwrap_or_else(|e| format!("(name unknown: {e})"));
        let version = p.version().unwrap_or_default();
        let ids = match p.get_devices(CL_DEVICE_TYPE_ALL) {
            Ok(ids) => ids,
            Err(e) => return OpenCl::NoPlatform(format!("platform {name} lists no device: {e}")),
        };
        devices.extend(ids.into_iter().map(|id| device(&name, &version, id)));
    }
    OpenCl::Devices(devices)
}

fn device(platform: &str, platform_version: &str, id: cl_device_id) -> Device {
    let d = ClDevice::new(id);
    Device {
        platform: platform.to_string(),
        platform_version: platform_version.to_string(),
        name: d.name().unwrap_or_default().trim().to_string(),
        kind: kind(d.dev_type().unwrap_or(0)),
        compute_units: d.max_compute_units().unwrap_or(1),
        max_workgroup_size: d
            .max_work_group_size()
            .map_or(1, |s| s.min(u32::MAX as usize) as u32),
        cl_std: cl_std(&d),
        id,
    }
}

fn kind(t: u64) -> &'static str {
    if t & CL_DEVICE_TYPE_GPU != 0 {
        "GPU"
    } else if t & CL_DEVICE_TYPE_CPU != 0 {
        "CPU"
    } else if t & CL_DEVICE_TYPE_ACCELERATOR != 0 {
        "accelerator"
    } else {
        "other"
    }
}

/// The newest OpenCL C with scoped atomics the device compiles: every version it lists (OpenCL
/// 3.0 devices, which may report "OpenCL C 1.2" as their version and 3.0 among all versions), or
/// else its OpenCL C version string.
fn cl_std(d: &ClDevice) -> Option<&'static str> {
    let listed: Vec<(u32, u32)> = d
        .opencl_c_all_versions()
        .map(|vs| {
            vs.iter()
                .map(|v| (v.version >> 22, (v.version >> 12) & 0x3ff))
                .collect()
        })
        .unwrap_or_default();
    let reported = d.opencl_c_version().ok().and_then(|s| parse_c_version(&s));
    let newest = listed.into_iter().chain(reported).max()?;
    match newest {
        (3.., _) => Some("CL3.0"),
        (2, _) => Some("CL2.0"),
        _ => None,
    }
}

/// `(major, minor)` of "OpenCL C 2.0 …".
fn parse_c_version(s: &str) -> Option<(u32, u32)> {
    let number = s.strip_prefix("OpenCL C ")?.split_whitespace().next()?;
    let (major, minor) = number.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The device a run uses: `index` into the list, or the first GPU, or the first device.
pub fn choose(devices: &[Device], index: Option<usize>) -> Option<&Device> {
    match index {
        Some(i) => devices.get(i),
        None => devices
            .iter()
            .find(|d| d.kind == "GPU")
            .or_else(|| devices.first()),
    }
}

/// The detection lines `gpu run` prints.
pub(crate) fn render(cuda: bool, opencl: &OpenCl) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "CUDA driver: {}",
        if cuda {
            "found (libcuda.so.1)"
        } else {
            "no CUDA driver (libcuda.so.1 cannot be loaded)"
        }
    );
    match (opencl.unavailable(), opencl) {
        (Some(why), _) => {
            let _ = writeln!(s, "OpenCL: {why}");
        }
        (None, OpenCl::Devices(ds)) => {
            for (i, d) in ds.iter().enumerate() {
                let _ = writeln!(
                    s,
                    "OpenCL device {i}: {} / {} ({}, {} compute units, work-groups up to {}, {}; {})",
                    d.platform,
                    d.name,
                    d.kind,
                    d.compute_units,
                    d.max_workgroup_size,
                    d.cl_std.map_or("no OpenCL C 2.0 atomics".to_string(), |v| format!("-cl-std={v}")),
                    d.platform_version
                );
            }
        }
        (None, _) => {}
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opencl_c_versions_parse() {
        assert_eq!(parse_c_version("OpenCL C 1.2 PoCL"), Some((1, 2)));
        assert_eq!(parse_c_version("OpenCL C 3.0 "), Some((3, 0)));
        assert_eq!(parse_c_version("OpenCL 3.0"), None);
    }
}
