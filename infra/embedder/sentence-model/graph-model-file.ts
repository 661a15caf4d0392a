import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The nodes of the TensorFlow.js graph model in `modelDir`, and its weights by name; throws where it is not one this reads. */
export function readGraphModel(modelDir: string): { nodes: TfNode[]; weights: Map<string, Weight> } {
  const path = join(modelDir, 'model.json');
  const file: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (!isGraphModel(file))
    throw new Error(`${path} is not a graph model this translation reads: ${graphModelProblem(file)}.`);
  return { nodes: file.modelTopology.node, weights: readWeights(modelDir, file) };
}

/**
 * The parts of model.json the translation reads. Checked by hand rather than by a TypeBox
 * schema: this runs on the model thread, where importing TypeBox alone costs 150 to 200 ms of
 * every thread's start (the server's schemas live on the main thread).
 */
interface TfAttribute {
  i?: string;
  b?: boolean;
  type?: number | string;
  list?: { i?: string[] };
}
export interface TfNode {
  name: string;
  op: string;
  input?: string[];
  attr?: Record<string, TfAttribute>;
}
interface WeightSpec {
  name: string;
  shape: number[];
  dtype: 'float32' | 'int32';
}
interface GraphModelFile {
  modelTopology: { node: TfNode[] };
  weightsManifest: { paths: string[]; weights: WeightSpec[] }[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** Where `file` is not a graph model of the kind translated here, what is wrong first; else null. */
function graphModelProblem(file: unknown): string | null {
  if (!isObject(file) || !isObject(file.modelTopology) || !Array.isArray(file.modelTopology.node))
    return 'no modelTopology.node';
  for (const node of file.modelTopology.node) {
    if (!isObject(node) || typeof node.name !== 'string' || typeof node.op !== 'string')
      return 'a node without name or op';
    if (node.input !== undefined && !isStrings(node.input)) return `${node.name}'s inputs`;
    if (node.attr !== undefined && !isObject(node.attr)) return `${node.name}'s attributes`;
  }
  if (!Array.isArray(file.weightsManifest)) return 'no weightsManifest';
  for (const group of file.weightsManifest) {
    if (!isObject(group) || !isStrings(group.paths) || !Array.isArray(group.weights)) return 'a weights group';
    for (const spec of group.weights) {
      if (!isObject(spec) || typeof spec.name !== 'string') return 'a weight without name';
      if (spec.dtype !== 'float32' && spec.dtype !== 'int32') return `${spec.name} of type ${String(spec.dtype)}`;
      // Quantised weights would need dequantising first; this model has none.
      if (spec.quantization !== undefined) return `${spec.name} is quantised`;
      if (!Array.isArray(spec.shape) || !spec.shape.every((size) => Number.isInteger(size) && size >= 0))
        return `${spec.name}'s shape`;
    }
  }
  return null;
}

function isGraphModel(file: unknown): file is GraphModelFile {
  return graphModelProblem(file) === null;
}

export interface Weight {
  dtype: 'float32' | 'int32';
  shape: number[];
  bytes: Buffer;
}

function readWeights(modelDir: string, file: GraphModelFile): Map<string, Weight> {
  const weights = new Map<string, Weight>();
  for (const group of file.weightsManifest) {
    const data = Buffer.concat(group.paths.map((path) => readFileSync(join(modelDir, path))));
    let offset = 0;
    for (const spec of group.weights) {
      // Both float32 and int32 take four bytes a value.
      const length = spec.shape.reduce((product, size) => product * size, 1) * 4;
      weights.set(spec.name, { dtype: spec.dtype, shape: spec.shape, bytes: data.subarray(offset, offset + length) });
      offset += length;
    }
    if (offset !== data.length)
      throw new Error(`The sentence model's weights take ${data.length} bytes, not ${offset}.`);
  }
  return weights;
}
