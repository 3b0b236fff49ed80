package dev.quiver.binding.errors;

/** A known setting given a value it does not accept; the message says what it accepts. */
public class InvalidSettingException extends QuiverException {
  private static final long serialVersionUID = 1L;
  private final String key;

  /** Creates the error for {@code key}; {@code message} names the key, the value and the rule. */
  public InvalidSettingException(String key, String message) {
    super(message);
    this.key = key;
  }

  /** The setting's key. */
  public String key() {
    return key;
  }
}
