import onnxProto from 'onnx-proto';
import { Tensor } from 'onnxruntime-node';
import { readGraphModel, type TfNode, type Weight } from './graph-model-file.js';

/**
 * The Universal Sentence Encoder lite ships as a TensorFlow.js graph model (model.json and its
 * weight shards). TensorFlow.js runs it on WebAssembly, one core, at about 25 texts of 40 words
 * a second here; ONNX Runtime runs the same graph natively (AVX2 kernels) at about 120. This
 * module translates the graph, node by node, into an ONNX model of the same operations and
 * weights: the vectors agree with TensorFlow.js's to 4e-7 (test/infra/embedder/onnx-graph.test.ts).
 *
 * It covers the operations this graph uses, with the attributes it uses them with; anything
 * else is refused when the model is loaded, never translated approximately. TensorFlow's int32
 * tensors become int64 (ONNX wants int64 for shapes, indices and axes), so no cast is needed
 * between the graph's index arithmetic and the operations that consume it.
 */
const { onnx } = onnxProto;
const DataType = onnx.TensorProto.DataType;
const AttributeType = onnx.AttributeProto.AttributeType;
const INT64_MAX = 9223372036854775807n;

/** The graph's inputs (the sparse token ids) and output (one unit vector per text). */
export const MODEL_INPUTS = { indices: 'indices', values: 'values' } as const;
export const MODEL_OUTPUT = 'module_apply_default/Encoder_en/hidden_layers/l2_normalize';

/** The graph's feeds for a batch of tokenised texts: a sparse matrix of (text, position) coordinates and token ids. */
export function modelInputs(tokens: number[][]): Record<string, Tensor> {
  const count = tokens.reduce((sum, ids) => sum + ids.length, 0);
  const indices = new BigInt64Array(count * 2);
  const values = new BigInt64Array(count);
  let at = 0;
  tokens.forEach((ids, row) =>
    ids.forEach((token, position) => {
      indices[at * 2] = BigInt(row);
      indices[at * 2 + 1] = BigInt(position);
      values[at++] = BigInt(token);
    }),
  );
  return {
    [MODEL_INPUTS.indices]: new Tensor('int64', indices, [count, 2]),
    [MODEL_INPUTS.values]: new Tensor('int64', values, [count]),
  };
}

/** TensorFlow's data types as they appear in the graph's attributes, and what they become. */
function onnxTypeOf(tfType: number | string | undefined): number {
  switch (tfType) {
    case 1:
    case 'DT_FLOAT':
      return DataType.FLOAT;
    case 3:
    case 9:
    case 'DT_INT32':
    case 'DT_INT64':
      return DataType.INT64;
    case 10:
    case 'DT_BOOL':
      return DataType.BOOL;
    default:
      throw new Error(`The sentence model's graph uses a data type ONNX translation does not cover: ${tfType}.`);
  }
}

class OnnxGraph {
  readonly nodes: onnxProto.onnx.INodeProto[] = [];
  readonly initializers: onnxProto.onnx.ITensorProto[] = [];
  /** The values of the graph's int32 constants: axes, perms, slice bounds are read at translation. */
  private readonly integers = new Map<string, number[]>();
  private counter = 0;

  fresh(base: string): string {
    return `${base}/onnx_${this.counter++}`;
  }

  node(
    opType: string,
    input: string[],
    output: string | string[],
    attribute: onnxProto.onnx.IAttributeProto[] = [],
  ): string {
    const outputs = typeof output === 'string' ? [output] : output;
    this.nodes.push({ opType, input, output: outputs, name: this.fresh(outputs[0]), attribute });
    return outputs[0];
  }

  /** A constant of the original graph, under its own name. */
  constant(name: string, weight: Weight): void {
    if (weight.dtype === 'float32') {
      this.initializers.push({ name, dims: weight.shape, dataType: DataType.FLOAT, rawData: weight.bytes });
      return;
    }
    const ints = Array.from({ length: weight.bytes.length / 4 }, (_, index) => weight.bytes.readInt32LE(index * 4));
    this.integers.set(name, ints);
    this.initializers.push(int64Tensor(name, ints, weight.shape));
  }

  /** A new int64 constant (axes, bounds). */
  int64(values: (number | bigint)[]): string {
    const name = this.fresh('constant');
    this.initializers.push(int64Tensor(name, values, [values.length]));
    return name;
  }

  valuesOf(tensor: string): number[] {
    const values = this.integers.get(tensor);
    if (!values) throw new Error(`The sentence model's graph computes ${tensor}, which translation needs constant.`);
    return values;
  }

  /** The initializers some node reads: constants only read at translation are left out. */
  usedInitializers(): onnxProto.onnx.ITensorProto[] {
    const read = new Set(this.nodes.flatMap((node) => node.input ?? []));
    return this.initializers.filter((tensor) => read.has(tensor.name ?? ''));
  }
}

function int64Tensor(name: string, values: (number | bigint)[], dims: number[]): onnxProto.onnx.ITensorProto {
  const data = BigInt64Array.from(values, (value) => BigInt(value));
  return { name, dims, dataType: DataType.INT64, rawData: new Uint8Array(data.buffer) };
}

const int = (name: string, i: number): onnxProto.onnx.IAttributeProto => ({ name, type: AttributeType.INT, i });
const ints = (name: string, values: number[]): onnxProto.onnx.IAttributeProto => ({
  name,
  type: AttributeType.INTS,
  ints: values,
});
const text = (name: string, s: string): onnxProto.onnx.IAttributeProto => ({
  name,
  type: AttributeType.STRING,
  s: new TextEncoder().encode(s),
});

/** "node:0" is "node"; a control input ("^node") orders execution and carries no tensor. */
function tensorInputs(node: TfNode): string[] {
  return (node.input ?? []).filter((input) => !input.startsWith('^')).map((input) => input.replace(/:0$/, ''));
}

function translate(graph: OnnxGraph, node: TfNode, weights: Map<string, Weight>): void {
  const inputs = tensorInputs(node);
  const name = node.name;
  const attribute = (key: string) => node.attr?.[key];
  const integer = (key: string) => Number(attribute(key)?.i ?? 0);
  const flag = (key: string) => attribute(key)?.b === true;
  const list = (key: string) => (attribute(key)?.list?.i ?? []).map(Number);
  const keepdims = int('keepdims', flag('keep_dims') ? 1 : 0);
  switch (node.op) {
    case 'Const': {
      const weight = weights.get(name);
      if (!weight) throw new Error(`The sentence model's constant ${name} has no weights.`);
      graph.constant(name, weight);
      return;
    }
    case 'Placeholder':
      return;
    case 'Add':
    case 'BiasAdd': // NHWC (the only format here): the bias is on the last axis, as Add broadcasts it
      graph.node('Add', inputs, name);
      return;
    case 'Sub':
    case 'Mul':
    case 'Less':
    case 'Greater':
    case 'Sin':
    case 'Cos':
    case 'Relu':
    case 'Tanh':
      graph.node(node.op, inputs, name);
      return;
    case 'RealDiv':
      graph.node('Div', inputs, name);
      return;
    case 'Maximum':
      graph.node('Max', inputs, name);
      return;
    case 'LogicalNot':
      graph.node('Not', inputs, name);
      return;
    case 'Square':
      graph.node('Mul', [inputs[0], inputs[0]], name);
      return;
    case 'Rsqrt':
      graph.node('Reciprocal', [graph.node('Sqrt', inputs, graph.fresh(name))], name);
      return;
    case 'Softmax':
      graph.node('Softmax', inputs, name, [int('axis', -1)]);
      return;
    case 'Cast':
      graph.node('Cast', inputs, name, [int('to', onnxTypeOf(attribute('DstT')?.type))]);
      return;
    case 'Shape':
    case 'Reshape':
    case 'Range':
      graph.node(node.op, inputs, name);
      return;
    case 'Where': {
      // TensorFlow gives the coordinates of true values as rows; ONNX's NonZero as columns.
      graph.node('Transpose', [graph.node('NonZero', inputs, graph.fresh(name))], name, [ints('perm', [1, 0])]);
      return;
    }
    case 'GatherV2':
      if (integer('batch_dims') !== 0) break;
      graph.node('Gather', inputs.slice(0, 2), name, [int('axis', graph.valuesOf(inputs[2])[0])]);
      return;
    case 'GatherNd':
      graph.node('GatherND', inputs, name);
      return;
    case 'Max':
    case 'Mean':
    case 'Prod': {
      const reduce = { Max: 'ReduceMax', Mean: 'ReduceMean', Prod: 'ReduceProd' }[node.op];
      graph.node(reduce, [inputs[0]], name, [ints('axes', graph.valuesOf(inputs[1])), keepdims]);
      return;
    }
    case 'Sum':
      graph.node('ReduceSum', [inputs[0], graph.int64(graph.valuesOf(inputs[1]))], name, [keepdims]);
      return;
    case 'ExpandDims':
      graph.node('Unsqueeze', [inputs[0], graph.int64(graph.valuesOf(inputs[1]))], name);
      return;
    case 'Squeeze': {
      const axes = list('squeeze_dims');
      graph.node('Squeeze', axes.length > 0 ? [inputs[0], graph.int64(axes)] : [inputs[0]], name);
      return;
    }
    case 'ConcatV2':
      graph.node('Concat', inputs.slice(0, -1), name, [int('axis', graph.valuesOf(inputs[inputs.length - 1])[0])]);
      return;
    case 'Pack': {
      const axis = integer('axis');
      const rows = inputs.map((input) => graph.node('Unsqueeze', [input, graph.int64([axis])], graph.fresh(name)));
      graph.node('Concat', rows, name, [int('axis', axis)]);
      return;
    }
    case 'Transpose':
      graph.node('Transpose', [inputs[0]], name, [ints('perm', graph.valuesOf(inputs[1]))]);
      return;
    case 'SplitV': {
      const sizes = graph.valuesOf(inputs[1]);
      if (sizes.some((size) => size < 0)) break;
      const outputs = sizes.map((_, index) => (index === 0 ? name : `${name}:${index}`));
      graph.node('Split', [inputs[0], graph.int64(sizes)], outputs, [int('axis', graph.valuesOf(inputs[2])[0])]);
      return;
    }
    case 'StridedSlice': {
      const [begin, end, strides] = [1, 2, 3].map((index) => graph.valuesOf(inputs[index]));
      if (integer('ellipsis_mask') || integer('new_axis_mask') || strides.some((stride) => stride !== 1)) break;
      const [beginMask, endMask, shrinkMask] = [
        integer('begin_mask'),
        integer('end_mask'),
        integer('shrink_axis_mask'),
      ];
      const starts: bigint[] = [];
      const ends: bigint[] = [];
      const shrunk: number[] = [];
      begin.forEach((from, axis) => {
        const bit = 1 << axis;
        starts.push(beginMask & bit ? 0n : BigInt(from));
        if (shrinkMask & bit) {
          // One index, its axis dropped; -1 + 1 would be 0, an empty slice.
          ends.push(from === -1 ? INT64_MAX : BigInt(from + 1));
          shrunk.push(axis);
        } else ends.push(endMask & bit ? INT64_MAX : BigInt(end[axis]));
      });
      const axes = graph.int64(begin.map((_, axis) => axis));
      const sliced = graph.node(
        'Slice',
        [inputs[0], graph.int64(starts), graph.int64(ends), axes],
        shrunk.length > 0 ? graph.fresh(name) : name,
      );
      if (shrunk.length > 0) graph.node('Squeeze', [sliced, graph.int64(shrunk)], name);
      return;
    }
    case 'Slice': {
      const [begin, size] = [graph.valuesOf(inputs[1]), graph.valuesOf(inputs[2])];
      const ends = begin.map((from, axis) => (size[axis] === -1 ? INT64_MAX : BigInt(from + size[axis])));
      graph.node('Slice', [inputs[0], graph.int64(begin), graph.int64(ends)], name);
      return;
    }
    case 'SparseToDense': {
      const [indices, shape, values, fill] = inputs;
      graph.node('ScatterND', [graph.node('Expand', [fill, shape], graph.fresh(name)), indices, values], name);
      return;
    }
    case 'ScatterNd': {
      // TensorFlow's ScatterNd adds the updates of repeated indices into zeros.
      const [indices, updates, shape] = inputs;
      const type = onnxTypeOf(attribute('T')?.type);
      const zero: onnxProto.onnx.ITensorProto = {
        dims: [1],
        dataType: type,
        rawData: new Uint8Array(type === DataType.FLOAT ? 4 : 8),
      };
      const zeros = graph.node('ConstantOfShape', [shape], graph.fresh(name), [
        { name: 'value', type: AttributeType.TENSOR, t: zero },
      ]);
      graph.node('ScatterND', [zeros, indices, updates], name, [text('reduction', 'add')]);
      return;
    }
    case 'MatMul': {
      const [left, right] = inputs.map((input, index) =>
        flag(index === 0 ? 'transpose_a' : 'transpose_b')
          ? graph.node('Transpose', [input], graph.fresh(name), [ints('perm', [1, 0])])
          : input,
      );
      graph.node('MatMul', [left, right], name);
      return;
    }
    case 'BatchMatMul':
    case 'BatchMatMulV2': {
      const [adjointX, adjointY] = [flag('adj_x'), flag('adj_y')];
      if (!adjointX && !adjointY) graph.node('MatMul', inputs, name);
      else {
        // Einsum transposes the last two axes whatever the rank, which a Transpose's perm cannot say.
        const equation = `...${adjointX ? 'ji' : 'ij'},...${adjointY ? 'kj' : 'jk'}->...ik`;
        graph.node('Einsum', inputs, name, [text('equation', equation)]);
      }
      return;
    }
    case 'Conv2D': {
      // A 1x1 convolution with unit strides is a product on the last axis (NHWC).
      const filter = weights.get(inputs[1]);
      const unit = (values: number[]) => values.every((value) => value === 1);
      if (
        !filter ||
        filter.shape[0] !== 1 ||
        filter.shape[1] !== 1 ||
        !unit(list('strides')) ||
        !unit(list('dilations'))
      )
        break;
      const matrix = graph.fresh(`${inputs[1]}/matrix`);
      graph.initializers.push({
        name: matrix,
        dims: filter.shape.slice(2),
        dataType: DataType.FLOAT,
        rawData: filter.bytes,
      });
      graph.node('MatMul', [inputs[0], matrix], name);
      return;
    }
  }
  throw new Error(`The sentence model's graph has a ${node.op} (${name}) that ONNX translation does not cover.`);
}

/** The ONNX model (serialised) of the TensorFlow.js graph model in `modelDir`. */
export function onnxModelOf(modelDir: string): Uint8Array {
  const { nodes, weights } = readGraphModel(modelDir);
  const graph = new OnnxGraph();
  for (const node of nodes) translate(graph, node, weights);
  const tensor = (name: string, elemType: number, dims: (number | string)[]): onnxProto.onnx.IValueInfoProto => ({
    name,
    type: {
      tensorType: {
        elemType,
        shape: { dim: dims.map((dim) => (typeof dim === 'number' ? { dimValue: dim } : { dimParam: dim })) },
      },
    },
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    producerName: 'onnx-graph.ts',
    graph: {
      name: 'universal-sentence-encoder-lite',
      node: graph.nodes,
      initializer: graph.usedInitializers(),
      input: [
        tensor(MODEL_INPUTS.indices, DataType.INT64, ['tokens', 2]),
        tensor(MODEL_INPUTS.values, DataType.INT64, ['tokens']),
      ],
      output: [tensor(MODEL_OUTPUT, DataType.FLOAT, ['texts', 512])],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}
