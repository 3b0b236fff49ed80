/**
 * Quiver's statement grammar: {@link dev.quiver.binding.statement.StatementParser} reads the
 * statements Calcite's grammar lacks (SET, CREATE [EXTERNAL] TABLE, CREATE VIEW, DROP, COPY,
 * DESCRIBE, SHOW TABLES, EXPLAIN [ANALYZE]) into typed {@link
 * dev.quiver.binding.statement.Statement}s over a token scanner, {@link
 * dev.quiver.binding.statement.SqlTokens}, that knows string literals, quoted names, comments and
 * nested parentheses. The queries such statements embed, and every other statement, are left as
 * text with their position for Calcite's parser. Imports only {@link dev.quiver.binding.errors}.
 */
package dev.quiver.binding.statement;
