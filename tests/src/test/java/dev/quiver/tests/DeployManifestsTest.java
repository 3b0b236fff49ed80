package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.executor.ExecutorMain;
import dev.quiver.scheduler.SchedulerMain;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * The container images and Kubernetes manifests in {@code deploy/} agree with the servers' own
 * options (no Kubernetes cluster runs here): every manifest parses, container arguments parse as
 * the jars' command lines, probes hit {@code /healthz} and {@code /readyz} on the {@code
 * --http-port}, ports and Services line up, secrets are mounted where the flags read them,
 * resources match {@code --cores} and {@code --memory}, and Prometheus scrapes the HTTP port.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeployManifestsTest {
  private static final Path DEPLOY = Path.of("..", "deploy").toAbsolutePath().normalize();
  private static final String NAMESPACE = "quiver";

  private final List<Map<String, Object>> docs = new ArrayList<>();

  @BeforeAll
  void load() throws IOException {
    Yaml yaml = new Yaml(new SafeConstructor(new LoaderOptions()));
    try (Stream<Path> files = Files.list(DEPLOY.resolve("kubernetes"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
        for (Object doc : yaml.loadAll(Files.readString(f))) {
          if (doc != null) {
            assertThat(doc).as(f + " holds mappings").isInstanceOf(Map.class);
            docs.add(map(doc));
          }
        }
      }
    }
  }

  @Test
  void everyManifestIsAKubernetesObjectAndKustomizeListsEveryFile() throws IOException {
    assertThat(docs).isNotEmpty();
    for (Map<String, Object> d : docs) {
      assertThat(d).containsKeys("apiVersion", "kind");
      if (!d.get("kind").equals("Kustomization")) {
        assertThat(str(map(d.get("metadata")), "name")).isNotBlank();
      }
    }
    Map<String, Object> kustomization = only("Kustomization", null);
    List<String> resources = strings(kustomization.get("resources"));
    try (Stream<Path> files = Files.list(DEPLOY.resolve("kubernetes"))) {
      List<String> yamls =
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> n.endsWith(".yaml") && !n.equals("kustomization.yaml"))
              .sorted()
              .toList();
      assertThat(resources).containsExactlyInAnyOrderElementsOf(yamls);
    }
    assertThat(kustomization.get("namespace")).isEqualTo(NAMESPACE);
  }

  @Test
  void schedulerDeploymentAndServiceAgreeWithTheSchedulerOptions() {
    Map<String, Object> deployment = only("Deployment", "quiver-scheduler");
    Map<String, Object> container = container(deployment);
    ParseResult args = parse(new SchedulerMain(), container);
    int port = args.matchedOptionValue("--port", -1);
    int httpPort = args.matchedOptionValue("--http-port", -1);
    assertThat(port).isPositive();
    assertThat(httpPort).isPositive();
    assertThat(args.matchedOptionValue("--host", "")).isEqualTo("0.0.0.0");
    assertThat(args.matchedOptionValue("--advertise-host", ""))
        .isEqualTo("quiver-scheduler." + NAMESPACE + ".svc.cluster.local");
    assertThat(map(deployment.get("spec")).get("replicas")).isEqualTo(1);

    Map<String, Integer> ports = containerPorts(container);
    assertThat(ports).containsEntry("grpc", port).containsEntry("http", httpPort);
    checkProbes(container, ports, httpPort, args.hasMatchedOption("--tls-cert"));
    checkSecrets(deployment, container, args);
    checkScrape(deployment, httpPort, args.hasMatchedOption("--tls-cert"));
    assertThat(map(map(container.get("resources")).get("limits"))).containsKeys("cpu", "memory");

    Map<String, Object> service = only("Service", "quiver-scheduler");
    checkSelects(service, deployment);
    Map<String, Object> servicePorts = servicePortsByName(service);
    assertThat(resolve(map(servicePorts.get("grpc")).get("targetPort"), ports)).isEqualTo(port);
    assertThat(resolve(map(servicePorts.get("http")).get("targetPort"), ports)).isEqualTo(httpPort);
  }

  @Test
  void executorStatefulSetPointsAtTheSchedulerServiceAndMatchesItsResources() {
    Map<String, Object> set = only("StatefulSet", "quiver-executor");
    Map<String, Object> container = container(set);
    ParseResult args = parse(new ExecutorMain(), container);
    int port = args.matchedOptionValue("--port", -1);
    int httpPort = args.matchedOptionValue("--http-port", -1);
    assertThat(port).isPositive();
    assertThat(httpPort).isPositive();

    // --scheduler names the scheduler Service and its gRPC port.
    String scheduler = args.matchedOptionValue("--scheduler", "");
    Map<String, Object> schedulerService = only("Service", "quiver-scheduler");
    int schedulerServicePort =
        (Integer) map(servicePortsByName(schedulerService).get("grpc")).get("port");
    assertThat(scheduler)
        .isEqualTo("quiver-scheduler." + NAMESPACE + ".svc.cluster.local:" + schedulerServicePort);

    // Each executor advertises its stable name under the headless Service.
    String serviceName = str(map(set.get("spec")), "serviceName");
    Map<String, Object> headless = only("Service", serviceName);
    assertThat(map(headless.get("spec")).get("clusterIP")).isEqualTo("None");
    checkSelects(headless, set);
    assertThat(args.matchedOptionValue("--advertise-host", ""))
        .isEqualTo("$(POD_NAME)." + serviceName + "." + NAMESPACE + ".svc.cluster.local");
    assertThat(env(container)).containsKey("POD_NAME");

    Map<String, Integer> ports = containerPorts(container);
    assertThat(ports).containsEntry("flight", port).containsEntry("http", httpPort);
    Map<String, Object> headlessPorts = servicePortsByName(headless);
    assertThat(resolve(map(headlessPorts.get("flight")).get("targetPort"), ports)).isEqualTo(port);
    checkProbes(container, ports, httpPort, args.hasMatchedOption("--tls-cert"));
    checkSecrets(set, container, args);

    // Draining: preStop SIGTERMs the executor and waits; the kubelet's grace outlasts the drain.
    java.time.Duration drain =
        args.matchedOptionValue("--drain-timeout", java.time.Duration.ofMinutes(5));
    Map<String, Object> podSpec = map(map(map(set.get("spec")).get("template")).get("spec"));
    assertThat(((Number) podSpec.get("terminationGracePeriodSeconds")).longValue())
        .isGreaterThan(drain.toSeconds());
    Map<String, Object> preStop = map(map(container.get("lifecycle")).get("preStop"));
    assertThat(String.valueOf(map(preStop.get("exec")).get("command"))).contains("kill -TERM 1");
    checkScrape(set, httpPort, args.hasMatchedOption("--tls-cert"));

    // Resources: CPU is --cores; memory holds --memory of Arrow data plus the JVM heap.
    int cores = args.matchedOptionValue("--cores", 0);
    long memory = args.matchedOptionValue("--memory", 0L);
    Map<String, Object> resources = map(container.get("resources"));
    for (String kind : List.of("requests", "limits")) {
      Map<String, Object> r = map(resources.get(kind));
      assertThat(cpu(r.get("cpu"))).as(kind + " cpu").isEqualTo(cores);
      long heap = heapBytes(env(container).get("JAVA_TOOL_OPTIONS"));
      assertThat(quantity(r.get("memory")))
          .as(kind + " memory covers --memory plus -Xmx")
          .isGreaterThanOrEqualTo(memory + heap);
    }
    // The work directory is a mounted volume.
    String workDir = args.matchedOptionValue("--work-dir", Path.of("")).toString();
    assertThat(mountFor(container, workDir)).as("volume under --work-dir").isPresent();
    // SQL reads local files only under --allowed-paths: each is a read-only volume of its own,
    // neither the work directory nor a secret's mount (those are refused anyway).
    List<Path> allowed = args.matchedOptionValue("--allowed-paths", List.of());
    assertThat(allowed).as("--allowed-paths").isNotEmpty();
    for (Path root : allowed) {
      Map<String, Object> mount =
          mountFor(container, root.toString())
              .orElseThrow(() -> new AssertionError("no volume mounted under " + root));
      assertThat(mount.get("readOnly")).as("read-only volume under " + root).isEqualTo(true);
      Path at = Path.of(str(mount, "mountPath"));
      assertThat(Path.of(workDir).startsWith(at) || at.startsWith(Path.of(workDir)))
          .as(root + " apart from --work-dir")
          .isFalse();
      assertThat(str(mount, "name")).isNotIn("tls", "token");
    }
  }

  @Test
  void dockerfilesRunTheJarsTheReactorBuildsOnThePortsTheManifestsUse() throws IOException {
    checkDockerfile(
        "scheduler", "quiver-scheduler.jar", new SchedulerMain(), "Deployment", "quiver-scheduler");
    checkDockerfile(
        "executor", "quiver-executor.jar", new ExecutorMain(), "StatefulSet", "quiver-executor");
  }

  // ------------------------------------------------------------------------------------------

  private void checkDockerfile(String module, String jar, Object command, String kind, String name)
      throws IOException {
    String text = Files.readString(DEPLOY.resolve("docker").resolve(module + ".Dockerfile"));
    assertThat(text).contains("COPY " + jar + " /opt/quiver/" + jar);
    assertThat(text).contains("ENTRYPOINT [\"java\", \"-jar\", \"/opt/quiver/" + jar + "\"]");
    assertThat(Files.isRegularFile(Path.of("..", module, "target", jar)))
        .as("the reactor builds " + module + "/target/" + jar)
        .isTrue();
    Matcher cmd = Pattern.compile("(?m)^CMD \\[(.*)]$").matcher(text);
    assertThat(cmd.find()).isTrue();
    List<String> cmdArgs = new ArrayList<>();
    for (String a : cmd.group(1).split(",")) {
      cmdArgs.add(a.strip().replaceAll("^\"|\"$", ""));
    }
    CommandLine cli = new CommandLine(command);
    // The executor needs --scheduler from the container's arguments; the image's CMD is the rest.
    if (module.equals("executor")) {
      cmdArgs.add("--scheduler=scheduler:50050");
    }
    ParseResult parsed = cli.parseArgs(cmdArgs.toArray(String[]::new));
    Matcher expose = Pattern.compile("(?m)^EXPOSE (.*)$").matcher(text);
    assertThat(expose.find()).isTrue();
    List<Integer> exposed =
        Stream.of(expose.group(1).trim().split("\\s+")).map(Integer::parseInt).toList();
    assertThat(exposed)
        .contains(
            parsed.matchedOptionValue("--port", -1), parsed.matchedOptionValue("--http-port", -1));
    Map<String, Object> container = container(only(kind, name));
    assertThat(str(container, "image")).startsWith(name + ":");
    assertThat(containerPorts(container).values()).containsExactlyInAnyOrderElementsOf(exposed);
  }

  private static ParseResult parse(Object command, Map<String, Object> container) {
    assertThat(container).doesNotContainKey("command"); // the image's ENTRYPOINT runs the jar
    List<String> args = strings(container.get("args"));
    try {
      return new CommandLine(command).parseArgs(args.toArray(String[]::new));
    } catch (CommandLine.ParameterException e) {
      throw new AssertionError(
          "container args " + args + " are not valid options: " + e.getMessage(), e);
    }
  }

  private static void checkProbes(
      Map<String, Object> container, Map<String, Integer> ports, int httpPort, boolean tls) {
    for (String[] probe :
        new String[][] {{"livenessProbe", "/healthz"}, {"readinessProbe", "/readyz"}}) {
      Map<String, Object> get = map(map(container.get(probe[0])).get("httpGet"));
      assertThat(get.get("path")).as(probe[0]).isEqualTo(probe[1]);
      assertThat(resolve(get.get("port"), ports)).as(probe[0] + " port").isEqualTo(httpPort);
      assertThat(get.getOrDefault("scheme", "HTTP")).isEqualTo(tls ? "HTTPS" : "HTTP");
    }
  }

  private void checkSecrets(
      Map<String, Object> workload, Map<String, Object> container, ParseResult args) {
    Map<String, Object> volumes = new HashMap<>();
    for (Object v : list(podSpec(workload).get("volumes"))) {
      volumes.put(str(map(v), "name"), v);
    }
    for (String option : List.of("--token-file", "--tls-cert", "--tls-key", "--tls-ca")) {
      assertThat(args.hasMatchedOption(option)).as(option).isTrue();
      Path file = args.matchedOptionValue(option, Path.of(""));
      Map<String, Object> mount =
          mountFor(container, file.toString())
              .orElseThrow(
                  () -> new AssertionError("no volume mounted for " + option + " " + file));
      Map<String, Object> volume = map(volumes.get(str(mount, "name")));
      String secretName = str(map(volume.get("secret")), "secretName");
      Map<String, Object> secret = only("Secret", secretName);
      String key = Path.of(str(mount, "mountPath")).relativize(file).toString();
      assertThat(map(secret.get("stringData")))
          .as("secret " + secretName + " holds " + option + " as key " + key)
          .containsKey(key);
    }
  }

  private static void checkScrape(Map<String, Object> workload, int httpPort, boolean tls) {
    Map<String, Object> annotations =
        map(map(map(map(workload.get("spec")).get("template")).get("metadata")).get("annotations"));
    assertThat(annotations)
        .containsEntry("prometheus.io/scrape", "true")
        .containsEntry("prometheus.io/port", Integer.toString(httpPort))
        .containsEntry("prometheus.io/path", "/metrics")
        .containsEntry("prometheus.io/scheme", tls ? "https" : "http");
  }

  private static void checkSelects(Map<String, Object> service, Map<String, Object> workload) {
    Map<String, Object> selector = map(map(service.get("spec")).get("selector"));
    Map<String, Object> labels =
        map(map(map(map(workload.get("spec")).get("template")).get("metadata")).get("labels"));
    assertThat(labels).containsAllEntriesOf(selector);
    assertThat(map(map(map(workload.get("spec")).get("selector")).get("matchLabels")))
        .isEqualTo(selector);
  }

  private static Optional<Map<String, Object>> mountFor(
      Map<String, Object> container, String file) {
    for (Object m : list(container.get("volumeMounts"))) {
      String at = str(map(m), "mountPath");
      if (Path.of(file).startsWith(Path.of(at))) {
        return Optional.of(map(m));
      }
    }
    return Optional.empty();
  }

  private static Map<String, Integer> containerPorts(Map<String, Object> container) {
    Map<String, Integer> out = new HashMap<>();
    for (Object p : list(container.get("ports"))) {
      out.put(str(map(p), "name"), (Integer) map(p).get("containerPort"));
    }
    return out;
  }

  private static Map<String, Object> servicePortsByName(Map<String, Object> service) {
    Map<String, Object> out = new HashMap<>();
    for (Object p : list(map(service.get("spec")).get("ports"))) {
      out.put(str(map(p), "name"), p);
    }
    return out;
  }

  private static int resolve(Object port, Map<String, Integer> named) {
    if (port instanceof Integer i) {
      return i;
    }
    Integer n = named.get(port.toString());
    assertThat(n).as("container port named " + port).isNotNull();
    return n;
  }

  private static Map<String, String> env(Map<String, Object> container) {
    Map<String, String> out = new HashMap<>();
    for (Object e : list(container.get("env"))) {
      Map<String, Object> entry = map(e);
      out.put(str(entry, "name"), entry.containsKey("value") ? str(entry, "value") : "(from)");
    }
    return out;
  }

  private static long heapBytes(String javaOptions) {
    if (javaOptions == null) {
      throw new AssertionError(
          "set the heap with JAVA_TOOL_OPTIONS=-Xmx... so memory can be sized");
    }
    Matcher m = Pattern.compile("-Xmx(\\d+)([kmgKMG]?)").matcher(javaOptions);
    assertThat(m.find()).as("-Xmx in " + javaOptions).isTrue();
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "k" -> n << 10;
      case "m" -> n << 20;
      case "g" -> n << 30;
      default -> n;
    };
  }

  private static int cpu(Object q) {
    String s = q.toString();
    if (s.endsWith("m")) {
      return Integer.parseInt(s.substring(0, s.length() - 1)) / 1000;
    }
    return Integer.parseInt(s);
  }

  /** Kubernetes memory quantities: Ki, Mi, Gi, Ti (binary) or plain bytes. */
  private static long quantity(Object q) {
    Matcher m = Pattern.compile("(\\d+)(Ki|Mi|Gi|Ti)?").matcher(q.toString());
    assertThat(m.matches()).as("memory quantity " + q).isTrue();
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "" : m.group(2);
    return switch (unit) {
      case "Ki" -> n << 10;
      case "Mi" -> n << 20;
      case "Gi" -> n << 30;
      case "Ti" -> n << 40;
      default -> n;
    };
  }

  private Map<String, Object> only(String kind, String name) {
    List<Map<String, Object>> found =
        docs.stream()
            .filter(d -> d.get("kind").equals(kind))
            .filter(d -> name == null || name.equals(str(map(d.get("metadata")), "name")))
            .toList();
    assertThat(found).as(kind + " " + name).hasSize(1);
    return found.get(0);
  }

  private static Map<String, Object> podSpec(Map<String, Object> workload) {
    return map(map(map(workload.get("spec")).get("template")).get("spec"));
  }

  private static Map<String, Object> container(Map<String, Object> workload) {
    List<Object> containers = list(podSpec(workload).get("containers"));
    assertThat(containers).hasSize(1);
    return map(containers.get(0));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    assertThat(o).isInstanceOf(Map.class);
    return (Map<String, Object>) o;
  }

  @SuppressWarnings("unchecked")
  private static List<Object> list(Object o) {
    assertThat(o).isInstanceOf(List.class);
    return (List<Object>) o;
  }

  private static List<String> strings(Object o) {
    return list(o).stream().map(Object::toString).toList();
  }

  private static String str(Map<String, Object> m, String key) {
    Object v = m.get(key);
    assertThat(v).as(key).isNotNull();
    return v.toString();
  }
}
