package dev.quiver.binding.sql;

import dev.quiver.binding.errors.QueryTooComplexException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * Keeps Calcite's recursive parser, validator and planner within what they can follow. Calcite
 * recurses once per level of nesting: a 1,000-term {@code +} chain, a 5,000-term {@code OR} or
 * 5,000 nested parentheses overflowed the stack (a raw {@code StackOverflowError}, or a misleading
 * syntax error), and a 10 MB {@code OR} chain planned for minutes. So, before parsing, the text's
 * parentheses may nest at most {@link #MAX_DEPTH} deep and it may hold at most {@link
 * #MAX_OPERATORS} operators; after parsing, an {@code AND} or {@code OR} chain or an {@code IN}
 * list may have at most {@link #MAX_TERMS} terms, the chains (associative in SQL's three-valued
 * logic) are rebalanced into trees of logarithmic depth, and the tree may then be at most {@link
 * #MAX_DEPTH} deep and hold at most {@link #MAX_NODES} nodes. Every walk here is iterative, so the
 * checks themselves never overflow. Anything past a limit is a {@link QueryTooComplexException}
 * naming the limit and the place.
 */
final class SqlShape {
  /** Deepest nesting of parentheses, and of the parsed tree, that is planned. */
  static final int MAX_DEPTH = 200;

  /** Most syntax tree nodes (names, literals, operators, clauses) of one statement. */
  static final int MAX_NODES = 200_000;

  /**
   * Most operators (AND, OR, arithmetic, comparisons) in the text of one statement: Calcite's
   * parser takes time quadratic in the operators of one expression (a 5,000-term OR chain, 10,000
   * operators, parses in about 2 s; 40,000 terms take over 2 minutes).
   */
  static final int MAX_OPERATORS = 20_000;

  /**
   * Most terms of one AND or OR chain, or values of one IN list: Calcite's expression simplifier
   * takes time cubic in them (a 250-term OR plans in about 3 s, 500 terms in 12 s, 1,000 in 110 s
   * on a loaded 2-core machine).
   */
  static final int MAX_TERMS = 512;

  private SqlShape() {}

  /**
   * Refuses text whose parentheses nest deeper than {@link #MAX_DEPTH}, or that holds more than
   * {@link #MAX_OPERATORS} operators, outside string literals, quoted names and comments. Both are
   * checked on the text because Calcite's parser itself overflows its stack on deep nesting and
   * takes time quadratic in the operators of one expression.
   *
   * @param line line of the user's text where {@code sql} starts (1-based)
   * @param column column of that line where it starts (1-based)
   */
  static void checkText(String sql, int line, int column) {
    int depth = 0;
    int operators = 0;
    int l = line;
    int c = column;
    int i = 0;
    int n = sql.length();
    while (i < n) {
      char ch = sql.charAt(i);
      if (ch == '\'' || ch == '"') {
        int end = sql.indexOf(ch, i + 1);
        while (end >= 0 && end + 1 < n && sql.charAt(end + 1) == ch) {
          end = sql.indexOf(ch, end + 2);
        }
        int stop = end < 0 ? n : end + 1;
        for (; i < stop; i++) {
          if (sql.charAt(i) == '\n') {
            l++;
            c = 1;
          } else {
            c++;
          }
        }
        continue;
      }
      if (sql.startsWith("--", i)) {
        int end = sql.indexOf('\n', i);
        c += (end < 0 ? n : end) - i;
        i = end < 0 ? n : end;
        continue;
      }
      if (sql.startsWith("/*", i)) {
        int end = sql.indexOf("*/", i + 2);
        int stop = end < 0 ? n : end + 2;
        for (; i < stop; i++) {
          if (sql.charAt(i) == '\n') {
            l++;
            c = 1;
          } else {
            c++;
          }
        }
        continue;
      }
      if (Character.isLetterOrDigit(ch) || ch == '_' || ch == '$') {
        int end = i + 1;
        while (end < n
            && (Character.isLetterOrDigit(sql.charAt(end))
                || sql.charAt(end) == '_'
                || sql.charAt(end) == '$')) {
          end++;
        }
        if (end - i <= 3 && isLogicalKeyword(sql, i, end)) {
          operators = countOperator(operators, l, c);
        }
        c += end - i;
        i = end;
        continue;
      }
      if (ch == '(' && ++depth > MAX_DEPTH) {
        throw new QueryTooComplexException(
            "Query too deeply nested: parentheses nest more than "
                + MAX_DEPTH
                + " levels deep at line "
                + l
                + ", column "
                + c
                + "; Quiver plans at most "
                + MAX_DEPTH
                + " levels of nesting: flatten the expression or split the query");
      } else if (ch == ')') {
        depth = Math.max(0, depth - 1);
      } else if (OPERATOR_CHARS.indexOf(ch) >= 0) {
        // One operator however many characters it has (<=, <>, ||).
        while (i + 1 < n
            && OPERATOR_CHARS.indexOf(sql.charAt(i + 1)) >= 0
            && !sql.startsWith("--", i + 1)
            && !sql.startsWith("/*", i + 1)) {
          i++;
          c++;
        }
        operators = countOperator(operators, l, c);
      }
      if (ch == '\n') {
        l++;
        c = 1;
      } else {
        c++;
      }
      i++;
    }
  }

  /** Characters of SQL's operators: arithmetic, comparison and concatenation. */
  private static final String OPERATOR_CHARS = "+-*/%=<>!|";

  private static boolean isLogicalKeyword(String sql, int start, int end) {
    return sql.regionMatches(true, start, "OR", 0, 2) && end - start == 2
        || sql.regionMatches(true, start, "AND", 0, 3) && end - start == 3;
  }

  private static int countOperator(int operators, int line, int column) {
    if (operators + 1 > MAX_OPERATORS) {
      throw new QueryTooComplexException(
          "Query too large: it has more than "
              + MAX_OPERATORS
              + " operators (AND, OR, +, =, ...; the next at line "
              + line
              + ", column "
              + column
              + "), and Quiver plans at most "
              + MAX_OPERATORS
              + " in one statement: write long lists of alternatives as x IN (...) or as a join"
              + " against a table of the values");
    }
    return operators + 1;
  }

  /**
   * Rebalances AND and OR chains of a parsed statement in place, then refuses it if it is still
   * deeper than {@link #MAX_DEPTH} or larger than {@link #MAX_NODES}.
   */
  static void check(SqlNode statement) {
    rebalanceLogic(statement);
    Deque<SqlNode> nodes = new ArrayDeque<>();
    Deque<Integer> depths = new ArrayDeque<>();
    nodes.push(statement);
    depths.push(1);
    int count = 0;
    while (!nodes.isEmpty()) {
      SqlNode node = nodes.pop();
      int depth = depths.pop();
      if (++count > MAX_NODES) {
        throw new QueryTooComplexException(
            "Query too large: it has more than "
                + MAX_NODES
                + " syntax nodes (names, literals, operators); Quiver plans at most "
                + MAX_NODES
                + " in one statement: use a table (e.g. a join against the values) instead of"
                + " long lists of terms");
      }
      if (depth > MAX_DEPTH) {
        SqlParserPos pos = node.getParserPosition();
        throw new QueryTooComplexException(
            "Query too deeply nested: expressions or subqueries nest more than "
                + MAX_DEPTH
                + " levels deep"
                + (pos == null || pos.getLineNum() <= 0
                    ? ""
                    : " at line " + pos.getLineNum() + ", column " + pos.getColumnNum())
                + "; Quiver plans at most "
                + MAX_DEPTH
                + " levels (a chain of a + b + c ... nests one level per term): flatten the"
                + " expression or split the query");
      }
      for (SqlNode child : children(node)) {
        if (child != null) {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }

  private static List<SqlNode> children(SqlNode node) {
    if (node instanceof SqlNodeList list) {
      return list.getList();
    }
    if (node instanceof SqlCall call) {
      return call.getOperandList();
    }
    return List.of();
  }

  /**
   * Turns every chain {@code a OR b OR c ...} (and AND) into a balanced tree of the same operator:
   * the same terms in the same order, so results and short-circuiting are unchanged, with depth
   * log2(terms) instead of terms.
   */
  private static void rebalanceLogic(SqlNode statement) {
    Deque<SqlNode> todo = new ArrayDeque<>();
    todo.push(statement);
    while (!todo.isEmpty()) {
      SqlNode node = todo.pop();
      if (node instanceof SqlBasicCall call && isChainable(call)) {
        List<SqlNode> terms = chainTerms(call);
        checkTerms(terms.size(), call.getOperator().getName() + " chain", call);
        if (terms.size() > 2) {
          int half = terms.size() / 2;
          call.setOperand(0, balanced(call.getOperator(), terms.subList(0, half), call));
          call.setOperand(1, balanced(call.getOperator(), terms.subList(half, terms.size()), call));
        }
        // The terms themselves may hold other chains.
        for (SqlNode term : terms) {
          if (term != null) {
            todo.push(term);
          }
        }
        continue;
      }
      if (node instanceof SqlCall call
          && (call.getKind() == SqlKind.IN || call.getKind() == SqlKind.NOT_IN)
          && call.operandCount() == 2
          && call.operand(1) instanceof SqlNodeList values) {
        checkTerms(values.size(), call.getOperator().getName() + " list", call);
      }
      for (SqlNode child : children(node)) {
        if (child != null) {
          todo.push(child);
        }
      }
    }
  }

  private static void checkTerms(int terms, String what, SqlNode where) {
    if (terms <= MAX_TERMS) {
      return;
    }
    SqlParserPos pos = where.getParserPosition();
    throw new QueryTooComplexException(
        "Query too large: "
            + terms
            + " terms in one "
            + what
            + (pos == null || pos.getLineNum() <= 0
                ? ""
                : " at line " + pos.getLineNum() + ", column " + pos.getColumnNum())
            + "; Quiver plans at most "
            + MAX_TERMS
            + " terms in one AND or OR chain or IN list (planning time grows with the cube of"
            + " their length): put the values in a table and join against it");
  }

  private static boolean isChainable(SqlBasicCall call) {
    SqlKind kind = call.getKind();
    return (kind == SqlKind.AND || kind == SqlKind.OR) && call.operandCount() == 2;
  }

  /** The terms of the chain rooted at {@code root}, left to right. */
  private static List<SqlNode> chainTerms(SqlBasicCall root) {
    List<SqlNode> terms = new ArrayList<>();
    Deque<SqlNode> stack = new ArrayDeque<>();
    stack.push(root);
    while (!stack.isEmpty()) {
      SqlNode node = stack.pop();
      if (node instanceof SqlBasicCall call
          && call.getOperator() == root.getOperator()
          && call.operandCount() == 2) {
        // Right first, so the left operand is handled next: terms come out left to right.
        stack.push(call.operand(1));
        stack.push(call.operand(0));
      } else {
        terms.add(node);
      }
    }
    return terms;
  }

  /** A balanced tree of {@code op} over {@code terms}, built bottom-up without recursion. */
  private static SqlNode balanced(SqlOperator op, List<SqlNode> terms, SqlCall origin) {
    List<SqlNode> level = new ArrayList<>(terms);
    SqlParserPos pos = origin.getParserPosition();
    while (level.size() > 1) {
      List<SqlNode> next = new ArrayList<>((level.size() + 1) / 2);
      for (int i = 0; i + 1 < level.size(); i += 2) {
        next.add(op.createCall(pos, level.get(i), level.get(i + 1)));
      }
      if (level.size() % 2 == 1) {
        next.add(level.get(level.size() - 1));
      }
      level = next;
    }
    return level.get(0);
  }
}
