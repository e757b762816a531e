// bench/custom_attention.sh's addon: runs ONNX graphs on the onnxruntime library onnxruntime-node ships, through its C
// API (the OrtApi table read by slot: no header of onnxruntime's is vendored), with one custom operator in domain
// "tinylab": CausalAttention(qkv, bias) -> y on causal_attention.h's kernel. A measurement, not part of tinylab:
// errors are thrown as JS errors where a session is opened or run, and nothing here is hardened for users.
#include <node_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void OrtStatus;
typedef struct { const void* (*GetApi)(uint32_t); const char* (*GetVersionString)(void); } ApiBase;
extern const ApiBase* OrtGetApiBase(void);
static void* const* A;  // the OrtApi table, as slots
#define FN(i, T) ((T)A[i])
enum { GetErrorMessage = 2, CreateEnv = 3, CreateSessionFromArray = 8, Run = 9, CreateSessionOptions = 10,
  SetSessionExecutionMode = 13, DisableMemPattern = 17, EnableCpuMemArena = 18, SetGraphOpt = 23, SetIntra = 24,
  SetInter = 25, CreateCustomOpDomain = 26, CustomOpDomain_Add = 27, AddCustomOpDomain = 28,
  CreateTensorWithData = 49, GetTensorMutableData = 51, GetDimensionsCount = 61, GetDimensions = 62,
  GetTensorTypeAndShape = 65, CreateCpuMemoryInfo = 69, KernelInfoGetAttribute_int64 = 86, KernelContext_GetInput = 90,
  KernelContext_GetOutput = 91, ReleaseStatus = 93, ReleaseSession = 95, ReleaseValue = 96,
  ReleaseTensorTypeAndShapeInfo = 99, ReleaseSessionOptions = 100 };

static const char* check(OrtStatus* s) {
  static char msg[512];
  if (!s) return NULL;
  snprintf(msg, sizeof msg, "%s", FN(GetErrorMessage, const char* (*)(OrtStatus*))(s));
  FN(ReleaseStatus, void (*)(OrtStatus*))(s);
  return msg;
}

#include "causal_attention.h"

typedef struct { int64_t heads; } Kernel;
static void* k_create(const void* op, const void* api, const void* info) {
  (void)op; (void)api;
  Kernel* k = calloc(1, sizeof *k);
  const char* e = check(FN(KernelInfoGetAttribute_int64, OrtStatus* (*)(const void*, const char*, int64_t*))(info, "num_heads", &k->heads));
  if (e) fprintf(stderr, "CausalAttention: %s\n", e);
  return k;
}
/* the dims of a tensor into dims[0..max), returning its rank */
static size_t dims_of(const void* value, int64_t* dims, size_t max) {
  void* info;
  size_t rank = 0;
  check(FN(GetTensorTypeAndShape, OrtStatus* (*)(const void*, void**))(value, &info));
  check(FN(GetDimensionsCount, OrtStatus* (*)(void*, size_t*))(info, &rank));
  if (rank <= max) check(FN(GetDimensions, OrtStatus* (*)(void*, int64_t*, size_t))(info, dims, rank));
  FN(ReleaseTensorTypeAndShapeInfo, void (*)(void*))(info);
  return rank;
}

/* CausalAttention(qkv [B, S, 3C], bias [B, 1, S, S]) -> y [B, S, C], heads of C / num_heads (32 or 64) */
static void k_compute(void* kp, void* ctx) {
  Kernel* K = kp;
  const void *in, *bin;
  check(FN(KernelContext_GetInput, OrtStatus* (*)(void*, size_t, const void**))(ctx, 0, &in));
  check(FN(KernelContext_GetInput, OrtStatus* (*)(void*, size_t, const void**))(ctx, 1, &bin));
  int64_t dims[4];
  if (dims_of(in, dims, 3) != 3) return;
  const int B = (int)dims[0], S = (int)dims[1], C = (int)(dims[2] / 3), H = (int)K->heads, D = C / H;
  const float *qkv, *bias;
  check(FN(GetTensorMutableData, OrtStatus* (*)(const void*, void**))(in, (void**)&qkv));
  check(FN(GetTensorMutableData, OrtStatus* (*)(const void*, void**))(bin, (void**)&bias));
  int64_t od[3] = {B, S, C};
  void* out;
  check(FN(KernelContext_GetOutput, OrtStatus* (*)(void*, size_t, const int64_t*, size_t, void**))(ctx, 0, od, 3, &out));
  float* y;
  check(FN(GetTensorMutableData, OrtStatus* (*)(void*, void**))(out, (void**)&y));
  float* scratch = aligned_alloc(64, (ca_scratch(S, D) * 4 + 63) / 64 * 64);
  const float scale = 1.0f / sqrtf((float)D);
  for (int b = 0; b < B; b++)
    for (int h = 0; h < H; h++) {
      const float* base = qkv + (size_t)b * S * 3 * C + h * D;
      const float* bb = bias + (size_t)b * S * S;
      float* yo = y + (size_t)b * S * C + h * D;
      if (D == 64) ca_head(base, base + C, base + 2 * C, yo, bb, S, 64, 3 * C, C, scale, scratch);
      else ca_head(base, base + C, base + 2 * C, yo, bb, S, 32, 3 * C, C, scale, scratch);
    }
  free(scratch);
}
static void k_destroy(void* k) { free(k); }
static const char* op_name(const void* op) { (void)op; return "CausalAttention"; }
static const char* op_ep(const void* op) { (void)op; return NULL; }
static int op_type(const void* op, size_t i) { (void)op; (void)i; return 1; /* float */ }
static size_t op_inputs(const void* op) { (void)op; return 2; }
static size_t op_one(const void* op) { (void)op; return 1; }
static int op_char(const void* op, size_t i) { (void)op; (void)i; return 0; /* required */ }
static int op_memtype(const void* op, size_t i) { (void)op; (void)i; return 0; /* default */ }
static int op_one_i(const void* op) { (void)op; return 1; }
static int op_zero_i(const void* op) { (void)op; return 0; }
static int op_start(const void* op) { (void)op; return 1; }
static int op_end(const void* op) { (void)op; return 2147483647; }
static size_t no_pairs(int** a, int** b) { *a = NULL; *b = NULL; return 0; }
static void release_pairs(int* a, int* b) { (void)a; (void)b; }
static struct {
  uint32_t version;
  void* (*CreateKernel)(const void*, const void*, const void*);
  const char* (*GetName)(const void*);
  const char* (*GetExecutionProviderType)(const void*);
  int (*GetInputType)(const void*, size_t);
  size_t (*GetInputTypeCount)(const void*);
  int (*GetOutputType)(const void*, size_t);
  size_t (*GetOutputTypeCount)(const void*);
  void (*KernelCompute)(void*, void*);
  void (*KernelDestroy)(void*);
  int (*GetInputCharacteristic)(const void*, size_t);
  int (*GetOutputCharacteristic)(const void*, size_t);
  int (*GetInputMemoryType)(const void*, size_t);
  int (*GetVariadicInputMinArity)(const void*);
  int (*GetVariadicInputHomogeneity)(const void*);
  int (*GetVariadicOutputMinArity)(const void*);
  int (*GetVariadicOutputHomogeneity)(const void*);
  void* CreateKernelV2;
  void* KernelComputeV2;
  void* InferOutputShapeFn;
  int (*GetStartVersion)(const void*);
  int (*GetEndVersion)(const void*);
  size_t (*GetMayInplace)(int**, int**);
  void (*ReleaseMayInplace)(int*, int*);
  size_t (*GetAliasMap)(int**, int**);
  void (*ReleaseAliasMap)(int*, int*);
} OP = {30, k_create, op_name, op_ep, op_type, op_inputs, op_type, op_one, k_compute, k_destroy, op_char, op_char, op_memtype,
        op_one_i, op_zero_i, op_one_i, op_zero_i, NULL, NULL, NULL, op_start, op_end, no_pairs, release_pairs, no_pairs, release_pairs};

// ---------------- sessions ----------------
static void* env;
static void* cpu;
static napi_value err(napi_env e, const char* m) { napi_throw_error(e, NULL, m); return NULL; }

static void finalize_session(napi_env e, void* data, void* hint) { (void)e; (void)hint; FN(ReleaseSession, void (*)(void*))(data); }

static napi_value open_session(napi_env e, napi_callback_info ci) {
  size_t argc = 1; napi_value argv[1];
  napi_get_cb_info(e, ci, &argc, argv, NULL, NULL);
  void* data; size_t len; napi_typedarray_type t; napi_value ab; size_t off;
  napi_get_typedarray_info(e, argv[0], &t, &len, &data, &ab, &off);
  const char* m;
  if (!A) {
    A = (void* const*)OrtGetApiBase()->GetApi(30);
    if (!A) return err(e, "onnxruntime API 30 unavailable");
    if ((m = check(FN(CreateEnv, OrtStatus* (*)(int, const char*, void**))(3, "tinylab", &env)))) return err(e, m);
    if ((m = check(FN(CreateCpuMemoryInfo, OrtStatus* (*)(int, int, void**))(1, 0, &cpu)))) return err(e, m);
  }
  void* so;
  check(FN(CreateSessionOptions, OrtStatus* (*)(void**))(&so));
  check(FN(SetIntra, OrtStatus* (*)(void*, int))(so, 1));
  check(FN(SetInter, OrtStatus* (*)(void*, int))(so, 1));
  check(FN(SetSessionExecutionMode, OrtStatus* (*)(void*, int))(so, 0));
  check(FN(SetGraphOpt, OrtStatus* (*)(void*, int))(so, 99));
  check(FN(EnableCpuMemArena, OrtStatus* (*)(void*))(so));
  check(FN(DisableMemPattern, OrtStatus* (*)(void*))(so));
  void* dom;
  check(FN(CreateCustomOpDomain, OrtStatus* (*)(const char*, void**))("tinylab", &dom));
  check(FN(CustomOpDomain_Add, OrtStatus* (*)(void*, const void*))(dom, &OP));
  check(FN(AddCustomOpDomain, OrtStatus* (*)(void*, void*))(so, dom));
  void* sess;
  m = check(FN(CreateSessionFromArray, OrtStatus* (*)(void*, const void*, size_t, void*, void**))(env, data, len, so, &sess));
  FN(ReleaseSessionOptions, void (*)(void*))(so);  // the domain is kept for the process (sessions refer to it)
  if (m) return err(e, m);
  napi_value ext;
  napi_create_external(e, sess, finalize_session, NULL, &ext);
  return ext;
}

// run(session, names: string[], arrays: TypedArray[], dims: number[][], outputs: string[]) -> Float32Array[]
static napi_value run(napi_env e, napi_callback_info ci) {
  size_t argc = 5; napi_value argv[5];
  napi_get_cb_info(e, ci, &argc, argv, NULL, NULL);
  void* sess; napi_get_value_external(e, argv[0], &sess);
  uint32_t n, no; napi_get_array_length(e, argv[1], &n); napi_get_array_length(e, argv[4], &no);
  char** names = calloc(n, sizeof(char*)); void** vals = calloc(n, sizeof(void*));
  char** onames = calloc(no, sizeof(char*)); void** outs = calloc(no, sizeof(void*));
  napi_value result = NULL;
  const char* m = NULL;
  for (uint32_t i = 0; i < n; i++) {
    napi_value s, arr, dv; size_t sl;
    napi_get_element(e, argv[1], i, &s); napi_get_value_string_utf8(e, s, NULL, 0, &sl);
    names[i] = malloc(sl + 1); napi_get_value_string_utf8(e, s, names[i], sl + 1, &sl);
    napi_get_element(e, argv[2], i, &arr);
    void* data; size_t len; napi_typedarray_type t; napi_value ab; size_t off;
    napi_get_typedarray_info(e, arr, &t, &len, &data, &ab, &off);
    napi_get_element(e, argv[3], i, &dv);
    uint32_t nd; napi_get_array_length(e, dv, &nd);
    int64_t dims[8];
    for (uint32_t d = 0; d < nd; d++) { napi_value x; napi_get_element(e, dv, d, &x); napi_get_value_int64(e, x, &dims[d]); }
    int type = t == napi_float32_array ? 1 : t == napi_bigint64_array ? 7 : t == napi_int32_array ? 6 : 0;
    size_t bytes = len * (type == 7 ? 8 : 4);
    if ((m = check(FN(CreateTensorWithData, OrtStatus* (*)(void*, void*, size_t, const int64_t*, size_t, int, void**))(cpu, data, bytes, dims, nd, type, &vals[i])))) goto done;
  }
  for (uint32_t i = 0; i < no; i++) {
    napi_value s; size_t sl;
    napi_get_element(e, argv[4], i, &s); napi_get_value_string_utf8(e, s, NULL, 0, &sl);
    onames[i] = malloc(sl + 1); napi_get_value_string_utf8(e, s, onames[i], sl + 1, &sl);
  }
  if ((m = check(FN(Run, OrtStatus* (*)(void*, void*, char**, void**, size_t, char**, size_t, void**))(sess, NULL, names, vals, n, onames, no, outs)))) goto done;
  napi_create_array_with_length(e, no, &result);
  for (uint32_t i = 0; i < no; i++) {
    void* info; size_t cnt = 1, nd;
    check(FN(GetTensorTypeAndShape, OrtStatus* (*)(const void*, void**))(outs[i], &info));
    check(FN(GetDimensionsCount, OrtStatus* (*)(void*, size_t*))(info, &nd));
    int64_t dims[8]; check(FN(GetDimensions, OrtStatus* (*)(void*, int64_t*, size_t))(info, dims, nd));
    FN(ReleaseTensorTypeAndShapeInfo, void (*)(void*))(info);
    for (size_t d = 0; d < nd; d++) cnt *= (size_t)dims[d];
    float* src; check(FN(GetTensorMutableData, OrtStatus* (*)(void*, void**))(outs[i], (void**)&src));
    void* dst; napi_value ab, ta;
    napi_create_arraybuffer(e, cnt * 4, &dst, &ab);
    memcpy(dst, src, cnt * 4);
    napi_create_typedarray(e, napi_float32_array, cnt, ab, 0, &ta);
    napi_set_element(e, result, i, ta);
  }
done:
  for (uint32_t i = 0; i < n; i++) { free(names[i]); if (vals[i]) FN(ReleaseValue, void (*)(void*))(vals[i]); }
  for (uint32_t i = 0; i < no; i++) { free(onames[i]); if (outs[i]) FN(ReleaseValue, void (*)(void*))(outs[i]); }
  free(names); free(vals); free(onames); free(outs);
  if (m) return err(e, m);
  return result;
}

static napi_value init(napi_env e, napi_value exports) {
  napi_value f;
  napi_create_function(e, "open", NAPI_AUTO_LENGTH, open_session, NULL, &f); napi_set_named_property(e, exports, "open", f);
  napi_create_function(e, "run", NAPI_AUTO_LENGTH, run, NULL, &f); napi_set_named_property(e, exports, "run", f);
  return exports;
}
NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
