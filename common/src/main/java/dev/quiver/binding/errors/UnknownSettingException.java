package dev.quiver.binding.errors;

import java.util.List;

/** A setting ({@code SET key = value}, {@code SessionConfig.set}) that no module defines. */
public class UnknownSettingException extends QuiverException {
  private static final long serialVersionUID = 1L;
  private final String key;

  /** Creates the error, listing the closest known keys as suggestions. */
  public UnknownSettingException(String key, List<String> suggestions) {
    super(
        "Unknown setting '"
            + key
            + "'"
            + (suggestions.isEmpty()
                ? "; the README lists the settings"
                : Suggestions.format(suggestions)));
    this.key = key;
  }

  /** The key as given. */
  public String key() {
    return key;
  }
}
