# The Quiver executor image. Build from the jar the reactor made:
#   mvn -B -ntp -DskipTests package
#   docker build -f deploy/docker/executor.Dockerfile -t quiver-executor:0.1.0 executor/target
FROM eclipse-temurin:17-jre
RUN useradd --system --uid 10001 --no-create-home quiver \
    && mkdir -p /var/lib/quiver/work && chown 10001 /var/lib/quiver/work
COPY quiver-executor.jar /opt/quiver/quiver-executor.jar
USER 10001
# Arrow Flight (shuffle data and the control service) and HTTP (probes, metrics).
EXPOSE 50061 8081
ENTRYPOINT ["java", "-jar", "/opt/quiver/quiver-executor.jar"]
# --scheduler has no default: pass it (and the rest) as the container's arguments.
CMD ["--host", "0.0.0.0", "--port", "50061", "--http-port", "8081", "--work-dir", "/var/lib/quiver/work"]
