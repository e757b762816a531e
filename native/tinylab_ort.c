// A Node addon (built by bin/build.js where gcc and Node's headers are present) that opens onnxruntime sessions
// through onnxruntime's C API on the library onnxruntime-node ships, which its binding has already loaded (one
// onnxruntime in the process), with one custom operator: tinylab.CausalAttention(qkv [B, S, 3C], bias [B, 1, S, S])
// → y [B, S, C], num_heads heads of 32 or 64, on causal_attention.h's kernel (AVX-512F, checked at start). The
// OrtApi table is read by slot (the enum below): no header of onnxruntime's is vendored. Not the graphs
// (src/model/onnx.ts) and not the choice of engine (src/node/causal_attention.ts).
#include <node_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "causal_attention.h"

/* onnxruntime's C API version this file was written against: the table of onnxruntime-node 1.30.0's library */
enum { ORT_API = 30 };
/* the OrtApi slots used, in the order of onnxruntime_c_api.h's struct OrtApi */
enum {
  CreateStatus = 0, GetErrorMessage = 2, CreateEnv = 3, CreateSessionFromArray = 8, Run = 9, CreateSessionOptions = 10,
  SetSessionExecutionMode = 13, DisableMemPattern = 17, EnableCpuMemArena = 18, SetSessionGraphOptimizationLevel = 23,
  SetIntraOpNumThreads = 24, SetInterOpNumThreads = 25, CreateCustomOpDomain = 26, CustomOpDomain_Add = 27,
  AddCustomOpDomain = 28, CreateTensorWithDataAsOrtValue = 49, GetTensorMutableData = 51, GetDimensionsCount = 61,
  GetTensorElementType = 60, GetDimensions = 62, GetTensorTypeAndShape = 65, CreateCpuMemoryInfo = 69, KernelInfoGetAttribute_int64 = 86,
  KernelContext_GetInput = 90, KernelContext_GetOutput = 91, ReleaseStatus = 93, ReleaseSession = 95, ReleaseValue = 96,
  ReleaseTensorTypeAndShapeInfo = 99, ReleaseSessionOptions = 100,
};
enum { ORT_FAIL = 1, ONNX_FLOAT = 1, ONNX_INT32 = 6, ONNX_INT64 = 7, ONNX_BOOL = 9 };

typedef void Status;
typedef struct {
  const void* (*GetApi)(uint32_t);
  const char* (*GetVersionString)(void);
} ApiBase;
extern const ApiBase* OrtGetApiBase(void);

static void* const* api;  /* the OrtApi table */
static void* ort_env;       /* onnxruntime's environment (shared with the binding's: one per process) */
static void* cpu;         /* memory info of the tensors made over JavaScript's arrays */
static void* domain;      /* the "tinylab" custom-operator domain, added to every session's options */
static const char* unready; /* why the addon cannot run sessions, or NULL */
static pthread_once_t once = PTHREAD_ONCE_INIT;
#define ORT(slot, type) ((type)api[slot])

/* a status's message in this thread's buffer (NULL for success), the status released */
static const char* failed(Status* s) {
  static __thread char msg[512];
  if (!s) return NULL;
  snprintf(msg, sizeof msg, "%s", ORT(GetErrorMessage, const char* (*)(const Status*))(s));
  ORT(ReleaseStatus, void (*)(Status*))(s);
  return msg;
}
static Status* status(const char* msg) { return ORT(CreateStatus, Status* (*)(int, const char*))(ORT_FAIL, msg); }

/* ---- the operator ---- */

typedef struct { int64_t heads; } Kernel;

static Status* create_kernel(const void* op, const void* ortapi, const void* info, void** out) {
  (void)op, (void)ortapi;
  Kernel* k = calloc(1, sizeof *k);
  if (!k) return status("CausalAttention: out of memory");
  const char* m = failed(ORT(KernelInfoGetAttribute_int64, Status* (*)(const void*, const char*, int64_t*))(info, "num_heads", &k->heads));
  if (m || k->heads < 1) {
    free(k);
    return status("CausalAttention: num_heads must be a positive integer attribute");
  }
  *out = k;
  return NULL;
}

/* the dims of a tensor into dims[0..max), returning its rank (0 where it cannot be read), and its element type where
   `type` is given */
static size_t dims_of(const void* value, int64_t* dims, size_t max, int* type) {
  void* info;
  size_t rank = 0;
  if (failed(ORT(GetTensorTypeAndShape, Status* (*)(const void*, void**))(value, &info))) return 0;
  if (failed(ORT(GetDimensionsCount, Status* (*)(const void*, size_t*))(info, &rank)) || rank > max ||
      failed(ORT(GetDimensions, Status* (*)(const void*, int64_t*, size_t))(info, dims, rank)) ||
      (type && failed(ORT(GetTensorElementType, Status* (*)(const void*, int*))(info, type))))
    rank = 0;
  ORT(ReleaseTensorTypeAndShapeInfo, void (*)(void*))(info);
  return rank;
}

static Status* compute(void* kernel, void* ctx) {
  const int64_t heads = ((Kernel*)kernel)->heads;
  const void *qkv_value, *bias_value;
  int64_t qd[3], bd[4];
  if (failed(ORT(KernelContext_GetInput, Status* (*)(void*, size_t, const void**))(ctx, 0, &qkv_value)) ||
      failed(ORT(KernelContext_GetInput, Status* (*)(void*, size_t, const void**))(ctx, 1, &bias_value)) ||
      dims_of(qkv_value, qd, 3, NULL) != 3 || dims_of(bias_value, bd, 4, NULL) != 4)
    return status("CausalAttention: expected qkv [B, S, 3C] and bias [B, 1, S, S]");
  const int64_t B = qd[0], S = qd[1], C = qd[2] / 3, D = heads > 0 ? C / heads : 0;
  if (qd[2] != 3 * C || C != heads * D || (D != 32 && D != 64) || bd[0] != B || bd[1] != 1 || bd[2] != S || bd[3] != S)
    return status("CausalAttention: qkv must be [B, S, 3·heads·D] with D 32 or 64, and bias [B, 1, S, S]");
  const float *qkv, *bias;
  float* y;
  void* out;
  const int64_t od[3] = {B, S, C};
  const char* m;
  if ((m = failed(ORT(GetTensorMutableData, Status* (*)(const void*, void**))(qkv_value, (void**)&qkv))) ||
      (m = failed(ORT(GetTensorMutableData, Status* (*)(const void*, void**))(bias_value, (void**)&bias))) ||
      (m = failed(ORT(KernelContext_GetOutput, Status* (*)(void*, size_t, const int64_t*, size_t, void**))(ctx, 0, od, 3, &out))) ||
      (m = failed(ORT(GetTensorMutableData, Status* (*)(void*, void**))(out, (void**)&y))))
    return status(m);
  float* scratch = aligned_alloc(64, (ca_scratch((int)S, (int)D) * sizeof(float) + 63) / 64 * 64);
  if (!scratch) return status("CausalAttention: out of memory");
  const float scale = 1.0f / sqrtf((float)D);
  for (int64_t b = 0; b < B; b++)
    for (int64_t h = 0; h < heads; h++) {
      const float* q = qkv + (size_t)(b * S * 3 * C + h * D);
      const float* bb = bias + (size_t)(b * S * S);
      float* yo = y + (size_t)(b * S * C + h * D);
      (D == 64 ? ca_head64 : ca_head32)(q, q + C, q + 2 * C, yo, bb, (int)S, (int)(3 * C), (int)C, scale, scratch);
    }
  free(scratch);
  return NULL;
}

static void destroy_kernel(void* k) { free(k); }
static const char* op_name(const void* op) { return (void)op, "CausalAttention"; }
static const char* op_provider(const void* op) { return (void)op, NULL; /* the CPU provider */ }
static int op_float(const void* op, size_t i) { return (void)op, (void)i, ONNX_FLOAT; }
static size_t op_two(const void* op) { return (void)op, 2; }
static size_t op_one(const void* op) { return (void)op, 1; }
static int op_required(const void* op, size_t i) { return (void)op, (void)i, 0; }
static int op_mem_default(const void* op, size_t i) { return (void)op, (void)i, 0; }
static int op_arity(const void* op) { return (void)op, 1; }
static int op_homogeneous(const void* op) { return (void)op, 1; }
static int op_since(const void* op) { return (void)op, 1; }
static int op_until(const void* op) { return (void)op, 2147483647; }
static size_t op_no_pairs(int** in, int** out) { return *in = NULL, *out = NULL, 0; }
static void op_release_pairs(int* in, int* out) { (void)in, (void)out; }

/* onnxruntime_c_api.h's struct OrtCustomOp at this API version: the callbacks in its order */
static const struct {
  uint32_t version;
  void* CreateKernel;
  const char* (*GetName)(const void*);
  const char* (*GetExecutionProviderType)(const void*);
  int (*GetInputType)(const void*, size_t);
  size_t (*GetInputTypeCount)(const void*);
  int (*GetOutputType)(const void*, size_t);
  size_t (*GetOutputTypeCount)(const void*);
  void* KernelCompute;
  void (*KernelDestroy)(void*);
  int (*GetInputCharacteristic)(const void*, size_t);
  int (*GetOutputCharacteristic)(const void*, size_t);
  int (*GetInputMemoryType)(const void*, size_t);
  int (*GetVariadicInputMinArity)(const void*);
  int (*GetVariadicInputHomogeneity)(const void*);
  int (*GetVariadicOutputMinArity)(const void*);
  int (*GetVariadicOutputHomogeneity)(const void*);
  Status* (*CreateKernelV2)(const void*, const void*, const void*, void**);
  Status* (*KernelComputeV2)(void*, void*);
  void* InferOutputShapeFn;
  int (*GetStartVersion)(const void*);
  int (*GetEndVersion)(const void*);
  size_t (*GetMayInplace)(int**, int**);
  void (*ReleaseMayInplace)(int*, int*);
  size_t (*GetAliasMap)(int**, int**);
  void (*ReleaseAliasMap)(int*, int*);
} causal_attention = {
  ORT_API, NULL, op_name, op_provider, op_float, op_two, op_float, op_one, NULL, destroy_kernel, op_required,
  op_required, op_mem_default, op_arity, op_homogeneous, op_arity, op_homogeneous, create_kernel, compute, NULL,
  op_since, op_until, op_no_pairs, op_release_pairs, op_no_pairs, op_release_pairs,
};

/* ---- start-up, once per process ---- */

static void start(void) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f")) { unready = "this CPU has no AVX-512F (the kernel's only path)"; return; }
  const ApiBase* base = OrtGetApiBase();
  api = base ? (void* const*)base->GetApi(ORT_API) : NULL;
  if (!api) { unready = "onnxruntime's library does not offer C API version 30"; return; }
  const char* m;
  if ((m = failed(ORT(CreateEnv, Status* (*)(int, const char*, void**))(3 /* errors only */, "tinylab", &ort_env))) ||
      (m = failed(ORT(CreateCpuMemoryInfo, Status* (*)(int, int, void**))(1 /* arena */, 0, &cpu))) ||
      (m = failed(ORT(CreateCustomOpDomain, Status* (*)(const char*, void**))("tinylab", &domain))) ||
      (m = failed(ORT(CustomOpDomain_Add, Status* (*)(void*, const void*))(domain, &causal_attention)))) {
    static char why[600];
    snprintf(why, sizeof why, "onnxruntime refused the start: %s", m);
    unready = why;
  }
}

/* ---- what JavaScript calls ---- */

static napi_value fail(napi_env e, const char* what, const char* msg) {
  char text[700];
  snprintf(text, sizeof text, "tinylab's onnxruntime addon: %s: %s", what, msg);
  napi_throw_error(e, NULL, text);
  return NULL;
}

/* unready() → the reason sessions cannot be opened, or null */
static napi_value js_unready(napi_env e, napi_callback_info info) {
  (void)info;
  pthread_once(&once, start);
  napi_value v;
  if (unready) napi_create_string_utf8(e, unready, NAPI_AUTO_LENGTH, &v);
  else napi_get_null(e, &v);
  return v;
}

static void release_session(napi_env e, void* session, void* hint) {
  (void)e, (void)hint;
  ORT(ReleaseSession, void (*)(void*))(session);
}

/* open(bytes: Uint8Array, intraOpThreads: number) → a session, released when collected */
static napi_value js_open(napi_env e, napi_callback_info info) {
  pthread_once(&once, start);
  if (unready) return fail(e, "open", unready);
  size_t argc = 2;
  napi_value argv[2];
  napi_typedarray_type type;
  size_t length, offset;
  void* data;
  napi_value ab;
  int32_t threads;
  if (napi_get_cb_info(e, info, &argc, argv, NULL, NULL) != napi_ok || argc != 2 ||
      napi_get_typedarray_info(e, argv[0], &type, &length, &data, &ab, &offset) != napi_ok || type != napi_uint8_array ||
      napi_get_value_int32(e, argv[1], &threads) != napi_ok || threads < 1)
    return fail(e, "open", "expected (model bytes as a Uint8Array, intra-op threads ≥ 1)");
  void *options, *session = NULL;
  const char* m;
  if ((m = failed(ORT(CreateSessionOptions, Status* (*)(void**))(&options)))) return fail(e, "open", m);
  /* as src/node/onnxruntime.ts's graphOptions: one intra-op thread, sequential, full optimisation, the arena, no pattern */
  if (!(m = failed(ORT(SetIntraOpNumThreads, Status* (*)(void*, int))(options, threads))) &&
      !(m = failed(ORT(SetInterOpNumThreads, Status* (*)(void*, int))(options, 1))) &&
      !(m = failed(ORT(SetSessionExecutionMode, Status* (*)(void*, int))(options, 0))) &&
      !(m = failed(ORT(SetSessionGraphOptimizationLevel, Status* (*)(void*, int))(options, 99))) &&
      !(m = failed(ORT(EnableCpuMemArena, Status* (*)(void*))(options))) &&
      !(m = failed(ORT(DisableMemPattern, Status* (*)(void*))(options))) &&
      !(m = failed(ORT(AddCustomOpDomain, Status* (*)(void*, void*))(options, domain))))
    m = failed(ORT(CreateSessionFromArray, Status* (*)(void*, const void*, size_t, void*, void**))(ort_env, data, length, options, &session));
  ORT(ReleaseSessionOptions, void (*)(void*))(options);
  if (m) return fail(e, "open", m);
  napi_value out;
  if (napi_create_external(e, session, release_session, NULL, &out) != napi_ok) {
    ORT(ReleaseSession, void (*)(void*))(session);
    return fail(e, "open", "could not wrap the session");
  }
  return out;
}

/* a JavaScript string into a new buffer (NULL on failure) */
static char* string_of(napi_env e, napi_value v) {
  size_t n;
  if (napi_get_value_string_utf8(e, v, NULL, 0, &n) != napi_ok) return NULL;
  char* s = malloc(n + 1);
  if (s && napi_get_value_string_utf8(e, v, s, n + 1, &n) != napi_ok) free(s), s = NULL;
  return s;
}

/* run(session, names: string[], arrays: (Float32Array | BigInt64Array | Uint8Array)[], dims: number[][],
 *     outputs: string[]) → the float32 outputs, each a new Float32Array */
static napi_value js_run(napi_env e, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5], result = NULL;
  void* session;
  uint32_t n = 0, no = 0;
  if (napi_get_cb_info(e, info, &argc, argv, NULL, NULL) != napi_ok || argc != 5 ||
      napi_get_value_external(e, argv[0], &session) != napi_ok || napi_get_array_length(e, argv[1], &n) != napi_ok ||
      napi_get_array_length(e, argv[4], &no) != napi_ok)
    return fail(e, "run", "expected (session, names, arrays, dims, outputs)");
  char **names = calloc(n, sizeof(char*)), **onames = calloc(no, sizeof(char*));
  void **values = calloc(n, sizeof(void*)), **outs = calloc(no, sizeof(void*));
  const char* m = (!names || !onames || !values || !outs) ? "out of memory" : NULL;
  for (uint32_t i = 0; !m && i < n; i++) {
    napi_value name, array, dv;
    napi_typedarray_type type;
    size_t length, offset;
    void* data;
    napi_value ab;
    uint32_t rank;
    int64_t dims[8];
    if (napi_get_element(e, argv[1], i, &name) != napi_ok || !(names[i] = string_of(e, name)) ||
        napi_get_element(e, argv[2], i, &array) != napi_ok ||
        napi_get_typedarray_info(e, array, &type, &length, &data, &ab, &offset) != napi_ok ||
        napi_get_element(e, argv[3], i, &dv) != napi_ok || napi_get_array_length(e, dv, &rank) != napi_ok || rank > 8) {
      m = "a feed is not a name, a typed array and at most 8 dims";
      break;
    }
    size_t count = 1;
    for (uint32_t d = 0; d < rank; d++) {
      napi_value x;
      if (napi_get_element(e, dv, d, &x) != napi_ok || napi_get_value_int64(e, x, &dims[d]) != napi_ok || dims[d] < 0) m = "a dim is not a count";
      else count *= (size_t)dims[d];
    }
    int onnx = type == napi_float32_array ? ONNX_FLOAT : type == napi_bigint64_array ? ONNX_INT64 : type == napi_int32_array ? ONNX_INT32 : type == napi_uint8_array ? ONNX_BOOL : 0;
    size_t width = onnx == ONNX_INT64 ? 8 : onnx == ONNX_BOOL ? 1 : 4;
    if (!m && (!onnx || count != length)) m = "a feed's array does not match its type or dims";
    if (!m) m = failed(ORT(CreateTensorWithDataAsOrtValue, Status* (*)(void*, void*, size_t, const int64_t*, size_t, int, void**))(cpu, data, length * width, dims, rank, onnx, &values[i]));
  }
  for (uint32_t i = 0; !m && i < no; i++) {
    napi_value name;
    if (napi_get_element(e, argv[4], i, &name) != napi_ok || !(onames[i] = string_of(e, name))) m = "an output is not a name";
  }
  if (!m) m = failed(ORT(Run, Status* (*)(void*, void*, char**, void**, size_t, char**, size_t, void**))(session, NULL, names, values, n, onames, no, outs));
  if (!m && napi_create_array_with_length(e, no, &result) != napi_ok) m = "could not make the result";
  for (uint32_t i = 0; !m && i < no; i++) {
    int64_t dims[8];
    int type = 0;
    size_t rank = dims_of(outs[i], dims, 8, &type), count = 1;
    float* src;
    void* dst;
    napi_value ab, array;
    for (size_t d = 0; d < rank; d++) count *= (size_t)dims[d];
    if (type != ONNX_FLOAT) {
      m = "an output is not a float32 tensor";
      break;
    }
    if ((m = failed(ORT(GetTensorMutableData, Status* (*)(void*, void**))(outs[i], (void**)&src)))) break;
    if (napi_create_arraybuffer(e, count * sizeof(float), &dst, &ab) != napi_ok ||
        napi_create_typedarray(e, napi_float32_array, count, ab, 0, &array) != napi_ok || napi_set_element(e, result, i, array) != napi_ok) {
      m = "could not return an output";
      break;
    }
    memcpy(dst, src, count * sizeof(float));
  }
  for (uint32_t i = 0; i < n; i++) {
    if (names) free(names[i]);
    if (values && values[i]) ORT(ReleaseValue, void (*)(void*))(values[i]);
  }
  for (uint32_t i = 0; i < no; i++) {
    if (onames) free(onames[i]);
    if (outs && outs[i]) ORT(ReleaseValue, void (*)(void*))(outs[i]);
  }
  free(names), free(onames), free(values), free(outs);
  return m ? fail(e, "run", m) : result;
}

NAPI_MODULE_INIT() {
  const struct { const char* name; napi_callback fn; } fns[] = {{"unready", js_unready}, {"open", js_open}, {"run", js_run}};
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    napi_value f;
    if (napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn, NULL, &f) != napi_ok ||
        napi_set_named_property(env, exports, fns[i].name, f) != napi_ok)
      return NULL;
  }
  return exports;
}
