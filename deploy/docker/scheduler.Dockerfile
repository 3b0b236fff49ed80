# The Quiver scheduler image. Build from the jar the reactor made:
#   mvn -B -ntp -DskipTests package
#   docker build -f deploy/docker/scheduler.Dockerfile -t quiver-scheduler:0.1.0 scheduler/target
FROM eclipse-temurin:17-jre
RUN useradd --system --uid 10001 --no-create-home quiver
COPY quiver-scheduler.jar /opt/quiver/quiver-scheduler.jar
USER 10001
# gRPC (clients, executors) and HTTP (probes, metrics, jobs API, web UI).
EXPOSE 50050 8080
# The jar's manifest opens java.nio for Arrow; heap settings come from JAVA_TOOL_OPTIONS.
ENTRYPOINT ["java", "-jar", "/opt/quiver/quiver-scheduler.jar"]
CMD ["--host", "0.0.0.0", "--port", "50050", "--http-port", "8080"]
