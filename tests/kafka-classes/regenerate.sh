#!/usr/bin/env bash
# Test vectors written by the Java classes Kafka's message generator writes for a folder of
# schemas in Kafka's JSON format; CONTRIBUTING.md, "Vectors from Kafka's own classes".
#
#   tests/kafka-classes/regenerate.sh catalogue
#       Kafka 3.9 and 4.4 (../shared/kafka-schemas), merged as kafka-wire's catalogue is:
#       writes tests/golden/kafka_classes.json
#   tests/kafka-classes/regenerate.sh schemas DIR OUT.json [CASES_PER_VERSION [VALUES.json]]
#       every message of DIR at every version it lists (4 cases each by default), and the
#       cases VALUES.json chooses by hand (tests/kafka-classes/cases.py, --values)
#
# Needs java and javac (17 or later), python3 (3.11 or later), and two class paths:
#   KAFKA_GENERATOR_CLASSPATH  the classes of Kafka's message generator, with its dependencies,
#                              from a Kafka build
#   KAFKA_CLIENTS_CLASSPATH    the classes of Kafka's clients, with their dependencies, from a
#                              Kafka build
# This script builds neither: it runs the generator on the schema folders and compiles what the
# generator writes, with tests/kafka-classes/Vectors.java, in a temporary directory.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
usage() {
  sed -n '5,10p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
need() {
  [ -n "${!1:-}" ] || { echo "$1 is not set: $2" >&2; exit 2; }
}
need KAFKA_GENERATOR_CLASSPATH \
  "the classes of Kafka's message generator, with their dependencies, from a Kafka build"
need KAFKA_CLIENTS_CLASSPATH \
  "the classes of Kafka's clients, with their dependencies, from a Kafka build"

mode=${1:-}
# Folders to generate classes for, as package=folder; the package is oracle.<package>.
case "$mode" in
  catalogue)
    [ $# -eq 1 ] || usage
    schemas="$root/../shared/kafka-schemas"
    [ -d "$schemas/3.9" ] && [ -d "$schemas/4.4" ] ||
      { echo "no Kafka schemas at $schemas/3.9 and $schemas/4.4" >&2; exit 2; }
    folders=("k39=$schemas/3.9" "k44=$schemas/4.4")
    out="$root/tests/golden/kafka_classes.json"
    ;;
  schemas)
    [ $# -ge 3 ] && [ $# -le 5 ] || usage
    folders=("schemas=$(cd "$2" && pwd)")
    out=$3
    cases=${4:-4}
    values=()
    [ $# -lt 5 ] || values=(--values "$(cd "$(dirname "$5")" && pwd)/$(basename "$5")")
    ;;
  *) usage ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The generator's classes for each folder, from the schema files it takes.
for entry in "${folders[@]}"; do
  package=${entry%%=*}
  folder=${entry#*=}
  mkdir -p "$work/schemas/$package" "$work/src/oracle/$package"
  python3 "$here/cases.py" usable "$folder" | while read -r file; do
    cp "$folder/$file" "$work/schemas/$package/"
  done
  [ -n "$(ls -A "$work/schemas/$package")" ] ||
    { echo "FAILED: no message schema in $folder" >&2; exit 1; }
  java -cp "$KAFKA_GENERATOR_CLASSPATH" org.apache.kafka.message.MessageGenerator \
    -p "oracle.$package" -o "$work/src/oracle/$package" -i "$work/schemas/$package" \
    -m MessageDataGenerator JsonConverterGenerator >"$work/generator.log" 2>&1 ||
    { cat "$work/generator.log" >&2; echo "FAILED: Kafka's generator on $folder" >&2; exit 1; }
done

# javac's argument file, one quoted path a line.
{ find "$work/src" -name '*.java' | sort; echo "$here/Vectors.java"; } | sed 's/.*/"&"/' >"$work/sources"
javac -nowarn -encoding UTF-8 -d "$work/classes" -cp "$KAFKA_CLIENTS_CLASSPATH" \
  "@$work/sources" 2>"$work/javac.log" ||
  { cat "$work/javac.log" >&2; echo "FAILED: compiling the generated classes" >&2; exit 1; }

classpath="$work/classes:$KAFKA_CLIENTS_CLASSPATH"
case "$mode" in
  catalogue)
    python3 "$here/cases.py" catalogue "${folders[@]}" --classpath "$classpath" --out "$out"
    ;;
  schemas)
    python3 "$here/cases.py" schemas "${folders[0]#*=}" --package schemas --cases "$cases" \
      "${values[@]}" --classpath "$classpath" --out "$out"
    ;;
esac
