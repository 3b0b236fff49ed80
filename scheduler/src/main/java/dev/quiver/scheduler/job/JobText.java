package dev.quiver.scheduler.job;

import dev.quiver.binding.settings.SettingsRegistry;
import dev.quiver.distributed.proto.JobSpec;
import java.util.Collection;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A job's SQL text and its stages' plan texts as the scheduler logs, shows and keeps them in the
 * history: the values of its secret settings (an S3 key set with SET) and credentials written in
 * the text itself (OPTIONS ('secret_access_key' '...'), a URI's user information) replaced by
 * {@code ***}.
 */
final class JobText {
  private JobText() {}

  /**
   * A credential-looking option key followed by its quoted value ({@code key = 'v'} or {@code 'key'
   * 'v'}).
   */
  private static final Pattern SECRET_OPTION =
      Pattern.compile(
          "((?:'[^']*|\\b[\\w.]*)(?:secret|password|passwd|token|credential|access_key|session_key"
              + "|private_key|api_key)[\\w.]*'?\\s*=?\\s*)'(?:[^']|'')*'",
          Pattern.CASE_INSENSITIVE);

  private static final Pattern URI_USER_INFO =
      Pattern.compile("(\\b[a-zA-Z][\\w+.-]*://)[^/@\\s']+@");

  /** Values shorter than this are not searched for: they would hide ordinary words. */
  private static final int MIN_SECRET_CHARS = 4;

  /** The job's name with its secrets replaced by {@code ***}. */
  static String of(JobSpec spec) {
    return redact(spec.getName(), spec);
  }

  /** {@code text} of the job of {@code spec} with the values of its secret settings hidden. */
  static String redact(String text, JobSpec spec) {
    return redact(text, spec.getSettingsMap(), spec.getSecretSettingsList());
  }

  /**
   * {@code text} with credentials hidden: the values of {@code settings} whose keys are in {@code
   * secretKeys} (the client's registry marks them) or look secret, and credentials written in it.
   */
  static String redact(String text, Map<String, String> settings, Collection<String> secretKeys) {
    String out = text;
    for (Map.Entry<String, String> e : settings.entrySet()) {
      String value = e.getValue();
      if (value != null
          && value.length() >= MIN_SECRET_CHARS
          && (secretKeys.contains(e.getKey()) || SettingsRegistry.isSecret(e.getKey()))) {
        out = out.replace(value, "***");
      }
    }
    out =
        SECRET_OPTION.matcher(out).replaceAll(m -> Matcher.quoteReplacement(m.group(1)) + "'***'");
    return URI_USER_INFO.matcher(out).replaceAll("$1***@");
  }
}
