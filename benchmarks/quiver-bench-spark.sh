#!/usr/bin/env bash
# Runs the benchmark command line (quiver-bench.jar) with Spark's libraries, as built by
#   mvn -B -ntp -Pspark -DskipTests package
# e.g. benchmarks/quiver-bench-spark.sh bench --sf 1 --engines quiver,quiver-embedded2,duckdb,spark
# Spark needs these JDK packages opened (the list spark-submit passes on Java 17).
set -euo pipefail
target="$(cd "$(dirname "$0")" && pwd)/target"
if [[ ! -f "$target/spark.classpath" ]]; then
  echo "no $target/spark.classpath: build with mvn -Pspark -DskipTests package first" >&2
  exit 2
fi
opens=()
for p in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.util \
    java.util.concurrent java.util.concurrent.atomic jdk.internal.ref sun.nio.ch sun.nio.cs \
    sun.security.action sun.util.calendar; do
  opens+=("--add-opens=java.base/$p=ALL-UNNAMED")
done
exec java "${opens[@]}" -Djdk.reflect.useDirectMethodHandle=false \
  -Dio.netty.tryReflectionSetAccessible=true ${JAVA_OPTS:-} \
  -cp "$target/quiver-bench.jar:$(cat "$target/spark.classpath"):$target/spark-parquet/*" \
  dev.quiver.benchmarks.bench.QuiverBench "$@"
