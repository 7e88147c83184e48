/*
 * A fake libnvidia-ml.so.1 for node-labeller's tests: it exports the NVML symbols the Java
 * binding uses, with the x86-64 struct layouts of NVIDIA's nvml.h, and answers from a text file.
 *
 * Configuration: "fake-nvml.conf" in the directory this library was loaded from, re-read by every
 * nvmlInit_v2 that takes the reference count from 0 to 1 (so a test can change the answers between two
 * discoveries). Every nvmlInit_v2 / nvmlShutdown is appended to "fake-nvml.log" in the same directory.
 * One setting per line, "key value" (the value is the rest of the line); '#' starts a comment.
 *
 *   rc.<function> N        outside a block: return code of a system function (nvmlInit_v2,
 *                          nvmlSystemGetDriverVersion, nvmlSystemGetCudaDriverVersion, nvmlDeviceGetCount_v2)
 *   error.<code> TEXT      nvmlErrorString(code) (a built-in table answers the rest)
 *   driver 580.159.04      nvmlSystemGetDriverVersion
 *   cuda 13000             nvmlSystemGetCudaDriverVersion
 *   gpu                    starts the next GPU (index 0, 1, ...); the lines below describe it:
 *     name T / uuid T / memory BYTES / cc MAJOR MINOR / numa NODE / maxmig N
 *     pci BUSID DEVICEID SUBSYSID      busId as NVML prints it ("00000000:07:00.0"), ids in hex
 *     migmode CURRENT PENDING          absent: nvmlDeviceGetMigMode answers NOT_SUPPORTED
 *     fabric UUIDHEX32 STATUS CLIQUE STATE
 *     profile INDEX ID SLICES INSTANCES SM CE DEC ENC JPEG OFA MEMMB   one GPU-instance profile
 *     rc.<function> N        return code of that call on this GPU (15 = GPU is lost, ...)
 *   mig SLOT               starts a MIG device of the current GPU at index SLOT:
 *     name T / uuid T / memory BYTES / gi ID / ci ID
 *     attr SM CE DEC ENC JPEG OFA GISLICES CISLICES MEMMB
 *     rc.<function> N
 *
 * Build variants (-D): FAKE_NO_OPTIONAL leaves out nvmlDeviceGetGpuFabricInfo and nvmlDeviceGetNumaNodeId
 * (a pre-R550 driver); FAKE_NO_COUNT_V2 exports nvmlDeviceGetCount instead of nvmlDeviceGetCount_v2.
 * The exported fakeNvmlSizeof / fakeNvmlOffsetof let the Java tests compare JNA's layouts with gcc's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;

typedef struct {
    char busIdLegacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;

typedef struct {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_t;

typedef struct {
    unsigned int multiprocessorCount;
    unsigned int sharedCopyEngineCount;
    unsigned int sharedDecoderCount;
    unsigned int sharedEncoderCount;
    unsigned int sharedJpegCount;
    unsigned int sharedOfaCount;
    unsigned int gpuInstanceSliceCount;
    unsigned int computeInstanceSliceCount;
    unsigned long long memorySizeMB;
} nvmlDeviceAttributes_t;

typedef struct {
    unsigned int id;
    unsigned int isP2pSupported;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int copyEngineCount;
    unsigned int decoderCount;
    unsigned int encoderCount;
    unsigned int jpegCount;
    unsigned int ofaCount;
    unsigned long long memorySizeMB;
} nvmlGpuInstanceProfileInfo_t;

typedef struct {
    unsigned char clusterUuid[16];
    nvmlReturn_t status;
    unsigned int cliqueId;
    unsigned char state;
} nvmlGpuFabricInfo_t;

_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t");
_Static_assert(offsetof(nvmlPciInfo_t, busId) == 36, "busId");
_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t");
_Static_assert(sizeof(nvmlDeviceAttributes_t) == 40, "nvmlDeviceAttributes_t");
_Static_assert(sizeof(nvmlGpuInstanceProfileInfo_t) == 48, "nvmlGpuInstanceProfileInfo_t");
_Static_assert(sizeof(nvmlGpuFabricInfo_t) == 28, "nvmlGpuFabricInfo_t");

enum {
    SUCCESS = 0, UNINITIALIZED = 1, INVALID_ARGUMENT = 2, NOT_SUPPORTED = 3, NOT_FOUND = 6,
    INSUFFICIENT_SIZE = 7, DRIVER_NOT_LOADED = 9, GPU_IS_LOST = 15, LIB_RM_VERSION_MISMATCH = 18, UNKNOWN = 999
};

#define MAX_GPUS 16
#define MAX_MIGS 8
#define MAX_PROFILES 24
#define MAX_RCS 16
#define TEXT 96

typedef struct { char fn[64]; int rc; } rc_t;
typedef struct { int n; rc_t v[MAX_RCS]; } rcs_t;

typedef struct {
    int present;
    char name[TEXT], uuid[TEXT];
    unsigned long long memory;
    unsigned int gi, ci;
    nvmlDeviceAttributes_t attr;
    rcs_t rcs;
} mig_t;

typedef struct {
    char name[TEXT], uuid[TEXT];
    unsigned long long memory;
    int ccMajor, ccMinor;
    nvmlPciInfo_t pci;
    int hasMig;
    unsigned int migCurrent, migPending, maxMig;
    int hasFabric;
    nvmlGpuFabricInfo_t fabric;
    int hasNuma;
    unsigned int numa;
    int nprofiles;
    struct { unsigned int index; nvmlGpuInstanceProfileInfo_t info; } profiles[MAX_PROFILES];
    mig_t migs[MAX_MIGS];
    rcs_t rcs;
} gpu_t;

static struct {
    char driver[TEXT];
    int cuda;
    rcs_t rcs;
    int ngpus;
    gpu_t gpus[MAX_GPUS];
    int nerrors;
    struct { int code; char text[TEXT]; } errors[16];
} cfg;

static int refcount;

/* The directory this library was loaded from, with a trailing '/'. */
static void own_dir(char *out, size_t size) {
    Dl_info info;
    out[0] = '\0';
    if (dladdr((void *)&own_dir, &info) && info.dli_fname) {
        snprintf(out, size, "%s", info.dli_fname);
        char *slash = strrchr(out, '/');
        if (slash) {
            slash[1] = '\0';
        } else {
            out[0] = '\0';
        }
    }
}

static void log_call(const char *fn, int rc) {
    char path[4096];
    own_dir(path, sizeof path - 32);
    strcat(path, "fake-nvml.log");
    FILE *f = fopen(path, "a");
    if (f) {
        fprintf(f, "%s %d\n", fn, rc);
        fclose(f);
    }
}

static void add_rc(rcs_t *r, const char *fn, int rc) {
    if (r->n < MAX_RCS) {
        snprintf(r->v[r->n].fn, sizeof r->v[r->n].fn, "%s", fn);
        r->v[r->n].rc = rc;
        r->n++;
    }
}

static int rc_of(const rcs_t *r, const char *fn) {
    for (int i = 0; i < r->n; i++) {
        if (strcmp(r->v[i].fn, fn) == 0) {
            return r->v[i].rc;
        }
    }
    return SUCCESS;
}

static void parse_busid(nvmlPciInfo_t *p, const char *busId) {
    unsigned int domain = 0, bus = 0, dev = 0, fn = 0;
    snprintf(p->busId, sizeof p->busId, "%s", busId);
    sscanf(busId, "%x:%x:%x.%x", &domain, &bus, &dev, &fn);
    p->domain = domain;
    p->bus = bus;
    p->device = dev;
    snprintf(p->busIdLegacy, sizeof p->busIdLegacy, "%04X:%02X:%02X.0", domain & 0xffff, bus, dev);
}

static void parse_uuid(unsigned char out[16], const char *hex) {
    for (int i = 0; i < 16; i++) {
        unsigned int b = 0;
        if (sscanf(hex + 2 * i, "%2x", &b) != 1) {
            b = 0;
        }
        out[i] = (unsigned char)b;
    }
}

static void load_config(void) {
    char path[4096], line[512];
    memset(&cfg, 0, sizeof cfg);
    own_dir(path, sizeof path - 32);
    strcat(path, "fake-nvml.conf");
    FILE *f = fopen(path, "r");
    if (!f) {
        return;
    }
    gpu_t *gpu = NULL;
    mig_t *mig = NULL;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *key = line + strspn(line, " \t");
        if (*key == '\0' || *key == '#') {
            continue;
        }
        char *val = key + strcspn(key, " \t");
        if (*val) {
            *val++ = '\0';
            val += strspn(val, " \t");
        }
        if (strcmp(key, "gpu") == 0) {
            gpu = cfg.ngpus < MAX_GPUS ? &cfg.gpus[cfg.ngpus++] : NULL;
            mig = NULL;
        } else if (strcmp(key, "mig") == 0) {
            int slot = atoi(val);
            mig = (gpu && slot >= 0 && slot < MAX_MIGS) ? &gpu->migs[slot] : NULL;
            if (mig) {
                mig->present = 1;
            }
        } else if (strncmp(key, "rc.", 3) == 0) {
            add_rc(mig ? &mig->rcs : gpu ? &gpu->rcs : &cfg.rcs, key + 3, atoi(val));
        } else if (strncmp(key, "error.", 6) == 0 && cfg.nerrors < 16) {
            cfg.errors[cfg.nerrors].code = atoi(key + 6);
            snprintf(cfg.errors[cfg.nerrors].text, TEXT, "%s", val);
            cfg.nerrors++;
        } else if (!gpu) {
            if (strcmp(key, "driver") == 0) {
                snprintf(cfg.driver, TEXT, "%s", val);
            } else if (strcmp(key, "cuda") == 0) {
                cfg.cuda = atoi(val);
            }
        } else if (mig) {
            if (strcmp(key, "name") == 0) {
                snprintf(mig->name, TEXT, "%s", val);
            } else if (strcmp(key, "uuid") == 0) {
                snprintf(mig->uuid, TEXT, "%s", val);
            } else if (strcmp(key, "memory") == 0) {
                mig->memory = strtoull(val, NULL, 10);
            } else if (strcmp(key, "gi") == 0) {
                mig->gi = (unsigned int)atoi(val);
            } else if (strcmp(key, "ci") == 0) {
                mig->ci = (unsigned int)atoi(val);
            } else if (strcmp(key, "attr") == 0) {
                nvmlDeviceAttributes_t *a = &mig->attr;
                sscanf(val, "%u %u %u %u %u %u %u %u %llu", &a->multiprocessorCount, &a->sharedCopyEngineCount,
                       &a->sharedDecoderCount, &a->sharedEncoderCount, &a->sharedJpegCount, &a->sharedOfaCount,
                       &a->gpuInstanceSliceCount, &a->computeInstanceSliceCount, &a->memorySizeMB);
            }
        } else {
            if (strcmp(key, "name") == 0) {
                snprintf(gpu->name, TEXT, "%s", val);
            } else if (strcmp(key, "uuid") == 0) {
                snprintf(gpu->uuid, TEXT, "%s", val);
            } else if (strcmp(key, "memory") == 0) {
                gpu->memory = strtoull(val, NULL, 10);
            } else if (strcmp(key, "cc") == 0) {
                sscanf(val, "%d %d", &gpu->ccMajor, &gpu->ccMinor);
            } else if (strcmp(key, "pci") == 0) {
                char busId[32] = "";
                unsigned int deviceId = 0, subsys = 0;
                sscanf(val, "%31s %x %x", busId, &deviceId, &subsys);
                parse_busid(&gpu->pci, busId);
                gpu->pci.pciDeviceId = deviceId;
                gpu->pci.pciSubSystemId = subsys;
            } else if (strcmp(key, "migmode") == 0) {
                gpu->hasMig = 1;
                sscanf(val, "%u %u", &gpu->migCurrent, &gpu->migPending);
            } else if (strcmp(key, "maxmig") == 0) {
                gpu->maxMig = (unsigned int)atoi(val);
            } else if (strcmp(key, "numa") == 0) {
                gpu->hasNuma = 1;
                gpu->numa = (unsigned int)atoi(val);
            } else if (strcmp(key, "fabric") == 0) {
                char hex[64] = "";
                int status = 0;
                unsigned int clique = 0, state = 0;
                sscanf(val, "%63s %d %u %u", hex, &status, &clique, &state);
                gpu->hasFabric = 1;
                parse_uuid(gpu->fabric.clusterUuid, hex);
                gpu->fabric.status = status;
                gpu->fabric.cliqueId = clique;
                gpu->fabric.state = (unsigned char)state;
            } else if (strcmp(key, "profile") == 0 && gpu->nprofiles < MAX_PROFILES) {
                nvmlGpuInstanceProfileInfo_t *p = &gpu->profiles[gpu->nprofiles].info;
                sscanf(val, "%u %u %u %u %u %u %u %u %u %u %llu", &gpu->profiles[gpu->nprofiles].index, &p->id,
                       &p->sliceCount, &p->instanceCount, &p->multiprocessorCount, &p->copyEngineCount,
                       &p->decoderCount, &p->encoderCount, &p->jpegCount, &p->ofaCount, &p->memorySizeMB);
                gpu->nprofiles++;
            }
        }
    }
    fclose(f);
}

/* Handles are sentinels the caller never dereferences: GPU i is 0x1000+i, MIG slot s of GPU i 0x2000+i*16+s. */
static nvmlDevice_t gpu_handle(int i) { return (nvmlDevice_t)(uintptr_t)(0x1000 + i); }
static nvmlDevice_t mig_handle(int i, int s) { return (nvmlDevice_t)(uintptr_t)(0x2000 + i * 16 + s); }

static gpu_t *as_gpu(nvmlDevice_t d) {
    uintptr_t v = (uintptr_t)d;
    return (v >= 0x1000 && v < 0x1000 + (uintptr_t)cfg.ngpus) ? &cfg.gpus[v - 0x1000] : NULL;
}

static mig_t *as_mig(nvmlDevice_t d, int *parent) {
    uintptr_t v = (uintptr_t)d;
    if (v < 0x2000 || v >= 0x2000 + (uintptr_t)cfg.ngpus * 16) {
        return NULL;
    }
    int i = (int)((v - 0x2000) / 16), s = (int)((v - 0x2000) % 16);
    if (s >= MAX_MIGS || !cfg.gpus[i].migs[s].present) {
        return NULL;
    }
    if (parent) {
        *parent = i;
    }
    return &cfg.gpus[i].migs[s];
}

/* The configured return code of fn for device d (GPU or MIG device), or INVALID_ARGUMENT for a bad handle. */
static int device_rc(nvmlDevice_t d, const char *fn) {
    gpu_t *g = as_gpu(d);
    mig_t *m = g ? NULL : as_mig(d, NULL);
    if (!g && !m) {
        return INVALID_ARGUMENT;
    }
    return rc_of(g ? &g->rcs : &m->rcs, fn);
}

static int copy_text(char *out, unsigned int length, const char *text) {
    if (!out) {
        return INVALID_ARGUMENT;
    }
    if (length < strlen(text) + 1) {
        return INSUFFICIENT_SIZE;
    }
    strcpy(out, text);
    return SUCCESS;
}

/* NOT_SUPPORTED when the device has no such value, INVALID_ARGUMENT for a NULL out-pointer, else stores it. */
#define ANSWER(has, out, value) \
    do { if (!(has)) return NOT_SUPPORTED; if (!(out)) return INVALID_ARGUMENT; *(out) = (value); return SUCCESS; } while (0)
#define CHECK_INIT() do { if (refcount == 0) return UNINITIALIZED; } while (0)
#define CHECK_DEVICE(d, fn) do { CHECK_INIT(); int rc_ = device_rc(d, fn); if (rc_ != SUCCESS) return rc_; } while (0)

nvmlReturn_t nvmlInit_v2(void) {
    if (refcount == 0) {
        load_config();
    }
    int rc = rc_of(&cfg.rcs, "nvmlInit_v2");
    log_call("nvmlInit_v2", rc);
    if (rc == SUCCESS) {
        refcount++;
    }
    return rc;
}

nvmlReturn_t nvmlShutdown(void) {
    int rc = refcount == 0 ? UNINITIALIZED : SUCCESS;
    if (refcount > 0) {
        refcount--;
    }
    log_call("nvmlShutdown", rc);
    return rc;
}

const char *nvmlErrorString(nvmlReturn_t result) {
    for (int i = 0; i < cfg.nerrors; i++) {
        if (cfg.errors[i].code == result) {
            return cfg.errors[i].text;
        }
    }
    switch (result) {
    case 0: return "Success";
    case 1: return "Uninitialized";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 4: return "Insufficient Permissions";
    case 6: return "Not Found";
    case 7: return "Insufficient Size";
    case 9: return "Driver Not Loaded";
    case 13: return "Function Not Found";
    case 15: return "GPU is lost";
    case 18: return "Driver/library version mismatch";
    case 999: return "Unknown Error";
    default: return "Unknown Error";
    }
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    CHECK_INIT();
    int rc = rc_of(&cfg.rcs, "nvmlSystemGetDriverVersion");
    return rc != SUCCESS ? rc : copy_text(version, length, cfg.driver);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion) {
    int rc = rc_of(&cfg.rcs, "nvmlSystemGetCudaDriverVersion");
    if (rc != SUCCESS) {
        return rc;
    }
    if (!cudaDriverVersion) {
        return INVALID_ARGUMENT;
    }
    *cudaDriverVersion = cfg.cuda;
    return SUCCESS;
}

static nvmlReturn_t get_count(unsigned int *deviceCount, const char *fn) {
    CHECK_INIT();
    int rc = rc_of(&cfg.rcs, fn);
    if (rc != SUCCESS) {
        return rc;
    }
    if (!deviceCount) {
        return INVALID_ARGUMENT;
    }
    *deviceCount = (unsigned int)cfg.ngpus;
    return SUCCESS;
}

#ifdef FAKE_NO_COUNT_V2
nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount) { return get_count(deviceCount, "nvmlDeviceGetCount"); }
#else
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount) { return get_count(deviceCount, "nvmlDeviceGetCount_v2"); }
#endif

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    CHECK_INIT();
    if (!device || index >= (unsigned int)cfg.ngpus) {
        return INVALID_ARGUMENT;
    }
    int rc = rc_of(&cfg.gpus[index].rcs, "nvmlDeviceGetHandleByIndex_v2");
    if (rc != SUCCESS) {
        return rc;
    }
    *device = gpu_handle((int)index);
    return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
    CHECK_DEVICE(device, "nvmlDeviceGetName");
    gpu_t *g = as_gpu(device);
    return copy_text(name, length, g ? g->name : as_mig(device, NULL)->name);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
    CHECK_DEVICE(device, "nvmlDeviceGetUUID");
    gpu_t *g = as_gpu(device);
    return copy_text(uuid, length, g ? g->uuid : as_mig(device, NULL)->uuid);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory) {
    CHECK_DEVICE(device, "nvmlDeviceGetMemoryInfo");
    if (!memory) {
        return INVALID_ARGUMENT;
    }
    gpu_t *g = as_gpu(device);
    memory->total = g ? g->memory : as_mig(device, NULL)->memory;
    memory->used = memory->total / 100;
    memory->free = memory->total - memory->used;
    return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor) {
    CHECK_DEVICE(device, "nvmlDeviceGetCudaComputeCapability");
    gpu_t *g = as_gpu(device);
    if (!g) {
        return NOT_SUPPORTED;
    }
    if (!major || !minor) {
        return INVALID_ARGUMENT;
    }
    *major = g->ccMajor;
    *minor = g->ccMinor;
    return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci) {
    CHECK_DEVICE(device, "nvmlDeviceGetPciInfo_v3");
    int parent = 0;
    gpu_t *g = as_gpu(device);
    if (!g) {
        as_mig(device, &parent);
        g = &cfg.gpus[parent];
    }
    if (!pci) {
        return INVALID_ARGUMENT;
    }
    *pci = g->pci;
    return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode) {
    CHECK_DEVICE(device, "nvmlDeviceGetMigMode");
    gpu_t *g = as_gpu(device);
    if (!g || !g->hasMig) {
        return NOT_SUPPORTED;
    }
    if (!currentMode || !pendingMode) {
        return INVALID_ARGUMENT;
    }
    *currentMode = g->migCurrent;
    *pendingMode = g->migPending;
    return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count) {
    CHECK_DEVICE(device, "nvmlDeviceGetMaxMigDeviceCount");
    gpu_t *g = as_gpu(device);
    if (!g) {
        return INVALID_ARGUMENT;
    }
    if (!count) {
        return INVALID_ARGUMENT;
    }
    *count = (g->hasMig && g->migCurrent == 1) ? g->maxMig : 0;
    return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *migDevice) {
    CHECK_DEVICE(device, "nvmlDeviceGetMigDeviceHandleByIndex");
    gpu_t *g = as_gpu(device);
    if (!g || !migDevice || !g->hasMig || g->migCurrent != 1 || index >= g->maxMig || index >= MAX_MIGS) {
        return INVALID_ARGUMENT;
    }
    if (!g->migs[index].present) {
        return NOT_FOUND;
    }
    *migDevice = mig_handle((int)(g - cfg.gpus), (int)index);
    return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice, nvmlDevice_t *device) {
    CHECK_DEVICE(migDevice, "nvmlDeviceGetDeviceHandleFromMigDeviceHandle");
    int parent = 0;
    if (!as_mig(migDevice, &parent) || !device) {
        return INVALID_ARGUMENT;
    }
    *device = gpu_handle(parent);
    return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes) {
    CHECK_DEVICE(device, "nvmlDeviceGetAttributes_v2");
    mig_t *m = as_mig(device, NULL);
    ANSWER(m, attributes, m->attr);
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id) {
    CHECK_DEVICE(device, "nvmlDeviceGetGpuInstanceId");
    mig_t *m = as_mig(device, NULL);
    ANSWER(m, id, m->gi);
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id) {
    CHECK_DEVICE(device, "nvmlDeviceGetComputeInstanceId");
    mig_t *m = as_mig(device, NULL);
    ANSWER(m, id, m->ci);
}

/* Profile indexes past NVML_GPU_INSTANCE_PROFILE_COUNT (18 in the 13.2 header) answer INVALID_ARGUMENT. */
nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned int profile,
                                                 nvmlGpuInstanceProfileInfo_t *info) {
    CHECK_DEVICE(device, "nvmlDeviceGetGpuInstanceProfileInfo");
    gpu_t *g = as_gpu(device);
    if (!g || !info || profile >= 18) {
        return INVALID_ARGUMENT;
    }
    for (int i = 0; i < g->nprofiles; i++) {
        if (g->profiles[i].index == profile) {
            *info = g->profiles[i].info;
            return SUCCESS;
        }
    }
    return NOT_SUPPORTED;
}

#ifndef FAKE_NO_OPTIONAL
nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t *gpuFabricInfo) {
    CHECK_DEVICE(device, "nvmlDeviceGetGpuFabricInfo");
    gpu_t *g = as_gpu(device);
    ANSWER(g && g->hasFabric, gpuFabricInfo, g->fabric);
}

nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device, unsigned int *node) {
    CHECK_DEVICE(device, "nvmlDeviceGetNumaNodeId");
    gpu_t *g = as_gpu(device);
    ANSWER(g && g->hasNuma, node, g->numa);
}
#endif

/* Layout probes for the Java tests: gcc's sizeof / offsetof of the structs above, -1 when unknown. */
#define FIELD(s, f) if (strcmp(field, #f) == 0) return (int)offsetof(s, f)
int fakeNvmlSizeof(const char *type) {
    if (strcmp(type, "nvmlPciInfo_t") == 0) return (int)sizeof(nvmlPciInfo_t);
    if (strcmp(type, "nvmlMemory_t") == 0) return (int)sizeof(nvmlMemory_t);
    if (strcmp(type, "nvmlDeviceAttributes_t") == 0) return (int)sizeof(nvmlDeviceAttributes_t);
    if (strcmp(type, "nvmlGpuInstanceProfileInfo_t") == 0) return (int)sizeof(nvmlGpuInstanceProfileInfo_t);
    if (strcmp(type, "nvmlGpuFabricInfo_t") == 0) return (int)sizeof(nvmlGpuFabricInfo_t);
    return -1;
}

int fakeNvmlOffsetof(const char *type, const char *field) {
    if (strcmp(type, "nvmlPciInfo_t") == 0) {
        FIELD(nvmlPciInfo_t, busIdLegacy); FIELD(nvmlPciInfo_t, domain); FIELD(nvmlPciInfo_t, bus);
        FIELD(nvmlPciInfo_t, device); FIELD(nvmlPciInfo_t, pciDeviceId); FIELD(nvmlPciInfo_t, pciSubSystemId);
        FIELD(nvmlPciInfo_t, busId);
    } else if (strcmp(type, "nvmlMemory_t") == 0) {
        FIELD(nvmlMemory_t, total); FIELD(nvmlMemory_t, free); FIELD(nvmlMemory_t, used);
    } else if (strcmp(type, "nvmlDeviceAttributes_t") == 0) {
        FIELD(nvmlDeviceAttributes_t, multiprocessorCount); FIELD(nvmlDeviceAttributes_t, sharedCopyEngineCount);
        FIELD(nvmlDeviceAttributes_t, sharedDecoderCount); FIELD(nvmlDeviceAttributes_t, sharedEncoderCount);
        FIELD(nvmlDeviceAttributes_t, sharedJpegCount); FIELD(nvmlDeviceAttributes_t, sharedOfaCount);
        FIELD(nvmlDeviceAttributes_t, gpuInstanceSliceCount); FIELD(nvmlDeviceAttributes_t, computeInstanceSliceCount);
        FIELD(nvmlDeviceAttributes_t, memorySizeMB);
    } else if (strcmp(type, "nvmlGpuInstanceProfileInfo_t") == 0) {
        FIELD(nvmlGpuInstanceProfileInfo_t, id); FIELD(nvmlGpuInstanceProfileInfo_t, isP2pSupported);
        FIELD(nvmlGpuInstanceProfileInfo_t, sliceCount); FIELD(nvmlGpuInstanceProfileInfo_t, instanceCount);
        FIELD(nvmlGpuInstanceProfileInfo_t, multiprocessorCount); FIELD(nvmlGpuInstanceProfileInfo_t, copyEngineCount);
        FIELD(nvmlGpuInstanceProfileInfo_t, decoderCount); FIELD(nvmlGpuInstanceProfileInfo_t, encoderCount);
        FIELD(nvmlGpuInstanceProfileInfo_t, jpegCount); FIELD(nvmlGpuInstanceProfileInfo_t, ofaCount);
        FIELD(nvmlGpuInstanceProfileInfo_t, memorySizeMB);
    } else if (strcmp(type, "nvmlGpuFabricInfo_t") == 0) {
        FIELD(nvmlGpuFabricInfo_t, clusterUuid); FIELD(nvmlGpuFabricInfo_t, status);
        FIELD(nvmlGpuFabricInfo_t, cliqueId); FIELD(nvmlGpuFabricInfo_t, state);
    }
    return -1;
}
