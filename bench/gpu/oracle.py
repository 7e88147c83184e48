#!/usr/bin/env python3
# The labels node-labeller should print on this machine, computed independently of its code: NVML's answers through
# NVIDIA's own Python binding (nvidia-ml-py) and the formulas of GPU Feature Discovery's labelers
# (NVIDIA/k8s-device-plugin internal/lm), for the default config (MIG strategy none, no sharing). Prints the raw
# answers, then the expected labels; given a `print` output, compares the nvidia.com/ labels (all but gfd.timestamp)
# and exits 1 when they differ.
#
#   python3 oracle.py [PRINT_OUTPUT]
import ctypes, glob, re, sys, uuid
import pynvml as n
raw, exp = [], {}
def r(k, v): raw.append(f"{k}: {v}")
n.nvmlInit()
drv = n.nvmlSystemGetDriverVersion(); drv = drv.decode() if isinstance(drv, bytes) else drv
cuda = n.nvmlSystemGetCudaDriverVersion()
r("driver", drv); r("cuda", cuda)
p = drv.split(".")
P = "nvidia.com/"
exp.update({P+"cuda.driver.major": p[0], P+"cuda.driver.minor": p[1], P+"cuda.driver.rev": p[2] if len(p) > 2 else "",
            P+"cuda.driver-version.major": p[0], P+"cuda.driver-version.minor": p[1],
            P+"cuda.driver-version.revision": p[2] if len(p) > 2 else "", P+"cuda.driver-version.full": drv})
ma, mi = cuda // 1000, (cuda % 1000) // 10
exp.update({P+"cuda.runtime.major": str(ma), P+"cuda.runtime.minor": str(mi), P+"cuda.runtime-version.major": str(ma),
            P+"cuda.runtime-version.minor": str(mi), P+"cuda.runtime-version.full": f"{ma}.{mi}"})
cnt = n.nvmlDeviceGetCount(); r("count", cnt)
names, migcap, cliques, models = [], False, set(), {}
for i in range(cnt):
    h = n.nvmlDeviceGetHandleByIndex(i)
    name = n.nvmlDeviceGetName(h); name = name.decode() if isinstance(name, bytes) else name
    names.append(name)
    r(f"gpu{i}.name", name); r(f"gpu{i}.uuid", n.nvmlDeviceGetUUID(h))
    mem = n.nvmlDeviceGetMemoryInfo(h); r(f"gpu{i}.memory", f"total={mem.total} free={mem.free} used={mem.used}")
    cc = n.nvmlDeviceGetCudaComputeCapability(h); r(f"gpu{i}.cc", cc)
    pci = n.nvmlDeviceGetPciInfo(h)
    r(f"gpu{i}.pci", f"busId={pci.busId} legacy={pci.busIdLegacy} domain={pci.domain} bus={pci.bus} device={pci.device} "
                     f"pciDeviceId={pci.pciDeviceId:#010x} subsys={pci.pciSubSystemId:#010x}")
    migon = False
    try:
        mm = n.nvmlDeviceGetMigMode(h); r(f"gpu{i}.migmode", mm); migcap = True; migon = mm[0] == 1
    except n.NVMLError as e: r(f"gpu{i}.migmode", f"error {e.value} {e}")
    for fn in ("nvmlDeviceGetMaxMigDeviceCount", "nvmlDeviceGetNumaNodeId", "nvmlDeviceGetAttributes"):
        try: r(f"gpu{i}.{fn}", getattr(n, fn)(h))
        except Exception as e: r(f"gpu{i}.{fn}", f"error {getattr(e, 'value', '')} {e}")
    try:
        fi = n.c_nvmlGpuFabricInfo_t()
        n.nvmlDeviceGetGpuFabricInfo(h, ctypes.byref(fi))
        cu = str(uuid.UUID(bytes=bytes(fi.clusterUuid[:16])))
        r(f"gpu{i}.fabric", f"state={fi.state} status={fi.status} cliqueId={fi.cliqueId} clusterUuid={cu}")
        # NVML_GPU_FABRIC_STATE_COMPLETED = 3, with a cluster UUID: the GPU is attached to an NVLink fabric
        if fi.state == 3 and fi.status == 0 and cu != str(uuid.UUID(int=0)): cliques.add(f"{cu}.{fi.cliqueId}")
    except Exception as e: r(f"gpu{i}.fabric", f"error {getattr(e, 'value', '')} {e}")
    fam = {1: "tesla", 2: "fermi", 3: "kepler", 5: "maxwell", 6: "pascal", 9: "hopper", 10: "blackwell", 12: "blackwell", 13: "rubin"}
    f = fam.get(cc[0], "undefined")
    if cc[0] == 7: f = "volta" if cc[1] < 5 else "turing"
    if cc[0] == 8: f = "ampere" if cc[1] < 9 else "ada-lovelace"
    if i == 0:
        exp[P+"gpu.memory"] = str(mem.total // (1024 * 1024))
        exp[P+"gpu.compute.major"], exp[P+"gpu.compute.minor"] = str(cc[0]), str(cc[1])
        exp[P+"gpu.family"] = f
    # node-labeller's per-model labels (docs/gpu.md): the first GPU of a name gives memory and compute capability;
    # replicas 1 under the default config, 0 when every GPU of the model has MIG enabled
    m = models.setdefault(name, {"gpu.count": 0, "gpu.memory": str(mem.total // (1024 * 1024)), "gpu.family": f,
                                 "gpu.compute.major": str(cc[0]), "gpu.compute.minor": str(cc[1]), "mig": []})
    m["gpu.count"] += 1; m["mig"].append(migon)
def sanitise(s): return "-".join(re.sub(r"[^A-Za-z0-9-_. ]", "", s).split())
exp[P+"gpu.product"] = sanitise(names[0]); exp[P+"gpu.count"] = str(names.count(names[0]))
exp[P+"gpu.replicas"] = "1"; exp[P+"gpu.sharing-strategy"] = "none"
exp[P+"gpu.models"] = str(len(models))
# BEGIN GENERATED twins: from the GPU label declarations, do not edit (docs/development.md, "Generated files")
TWINS = {"gpu.compute.major": "compute.major", "gpu.compute.minor": "compute.minor", "gpu.count": "count", "gpu.family": "family", "gpu.memory": "memory", "gpu.replicas": "replicas"}
# END GENERATED twins
for name, m in models.items():
    m["gpu.count"] = str(m["gpu.count"]); m["gpu.replicas"] = "0" if all(m["mig"]) else "1"
    # a twin this oracle does not compute is a KeyError: compute its value above, independently of node-labeller
    for label, field in TWINS.items(): exp[P + "gpu.model." + sanitise(name) + "." + field] = m[label]
if len(cliques) == 1: exp[P+"gpu.clique"] = cliques.pop()
exp[P+"mig.capable"] = "true" if migcap else "false"; exp[P+"mps.capable"] = "false"
classes = []
for d in glob.glob("/sys/bus/pci/devices/*"):
    v = open(d + "/vendor").read().strip(); c = open(d + "/class").read().strip()[2:6]
    if v == "0x10de" and c in ("0300", "0302"): classes.append(c)
if classes: exp[P+"gpu.present"] = "true"
exp[P+"gpu.mode"] = "compute" if all(c == "0302" for c in classes) else "graphics" if all(c == "0300" for c in classes) else "unknown"
try: exp[P+"gpu.machine"] = sanitise(open("/sys/class/dmi/id/product_name").read().strip()) or "unknown"
except OSError: exp[P+"gpu.machine"] = "unknown"
n.nvmlShutdown()
print("\n".join(raw))
print("---- expected")
for k in sorted(exp): print(f"{k}={exp[k]}")
# compare with a print output given as argv[1]
if len(sys.argv) > 1:
    got = {}
    for line in open(sys.argv[1]):
        k, _, v = line.rstrip("\n").partition("=")
        if k.startswith(P) and k != P + "gfd.timestamp": got[k] = v
    bad = [f"{k}: expected {exp.get(k)!r} got {got.get(k)!r}" for k in sorted(set(exp) | set(got)) if exp.get(k) != got.get(k)]
    print("---- compare:", "MATCH" if not bad else "DIFF", f"({len(exp)} expected, {len(got)} printed)")
    for b in bad: print("  " + b)
    sys.exit(1 if bad else 0)
