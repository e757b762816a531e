// The bytes of a one-node ONNX model: y = a @ b over float32 with symbolic dimensions (MatMul, or com.microsoft's
// FusedMatMul when an operand is transposed). Not a general ONNX writer: the protobuf fields this model needs only.
const utf8 = new TextEncoder();

function varint(n: number): number[] {
  const out: number[] = [];
  do {
    const low = n % 128;
    n = Math.floor(n / 128);
    out.push(n > 0 ? low + 128 : low);
  } while (n > 0);
  return out;
}

// protobuf wire types: 0 = varint, 2 = length-delimited
const intField = (field: number, n: number) => [...varint(field * 8), ...varint(n)];
const bytesField = (field: number, b: number[] | Uint8Array) => [...varint(field * 8 + 2), ...varint(b.length), ...b];
const stringField = (field: number, s: string) => bytesField(field, utf8.encode(s));

const FLOAT = 1; // TensorProto.DataType
const ATTRIBUTE_INT = 2; // AttributeProto.AttributeType

/** ValueInfoProto { name, type: TypeProto { tensor_type { elem_type FLOAT, shape { dim { dim_param } } } } } */
function floatInput(name: string, dims: string[]): number[] {
  const shape = dims.flatMap((d) => bytesField(1, stringField(2, d)));
  return [...stringField(1, name), ...bytesField(2, bytesField(1, [...intField(1, FLOAT), ...bytesField(2, shape)]))];
}

/** a [..., M, K] (or [..., K, M] with transA) @ b [..., K, N] (or [..., N, K] with transB) → y [..., M, N]. */
export function matmulModel(rank: number, transA: boolean, transB: boolean): Uint8Array {
  if (!Number.isInteger(rank) || rank < 2) throw new Error(`matmulModel: rank must be an integer ≥ 2, got ${rank}`);
  const lead = Array.from({ length: rank - 2 }, (_, i) => `batch${i}`);
  const fused = transA || transB;
  const attr = (name: string, v: boolean) => bytesField(5, [...stringField(1, name), ...intField(3, +v), ...intField(20, ATTRIBUTE_INT)]);
  // NodeProto { input, input, output, op_type, domain, attribute* }
  const node = [
    ...stringField(1, "a"),
    ...stringField(1, "b"),
    ...stringField(2, "y"),
    ...stringField(4, fused ? "FusedMatMul" : "MatMul"),
    ...(fused ? [...stringField(7, "com.microsoft"), ...attr("transA", transA), ...attr("transB", transB)] : []),
  ];
  const [a, b] = [transA ? ["k", "m"] : ["m", "k"], transB ? ["n", "k"] : ["k", "n"]];
  // GraphProto { node, name, input (11), output (12) }
  const graph = [
    ...bytesField(1, node),
    ...stringField(2, "matmul"),
    ...bytesField(11, floatInput("a", [...lead, ...a])),
    ...bytesField(11, floatInput("b", [...lead, ...b])),
    ...bytesField(12, floatInput("y", [...lead, "m", "n"])),
  ];
  // ModelProto { ir_version 8, opset_import { domain, version }*, graph (7) }
  const opset = (domain: string, version: number) => bytesField(8, [...stringField(1, domain), ...intField(2, version)]);
  return Uint8Array.from([...intField(1, 8), ...opset("", 17), ...(fused ? opset("com.microsoft", 1) : []), ...bytesField(7, graph)]);
}
