package io.palisade.coordinator;

import com.fasterxml.jackson.core.JsonProcessingException;

/**
 * A JSON parser's error in plain words, for the person who typed the JSON: what the parser met, without its internals
 * (source descriptions, character codes, feature names). The caller says where (a line, a column, a file).
 */
public final class JsonSyntax {
    private JsonSyntax() {
    }

    /** What went wrong, starting lower-case: "unexpected end of input: expected close marker for Object". */
    public static String describe(JsonProcessingException e) {
        String what = e.getOriginalMessage()
                .replaceAll("\\[Source: [^\\]]*; line: (\\d+), column: (\\d+)]", "line $1, column $2")
                .replaceAll("\\('(.+?)' \\(code \\d+\\)\\)", "'$1'")
                .replaceAll("\\(\\(CTRL-CHAR, code \\d+\\)\\)", "(a control character)")
                .replaceAll("(a valid value )?\\(JSON String, Number, Array, Object or token 'null', 'true' or 'false'\\)",
                        "a string, number, array, object, true, false or null")
                .replaceAll(" \\([^()]*Feature[^()]*\\)", "")
                .replaceAll("\\s*\\n\\s*", " ")
                .replace("was expecting", "expected").replace("end-of-input", "end of input")
                .replace("Duplicate field", "duplicate key");
        return what.isEmpty() ? "not JSON" : Character.toLowerCase(what.charAt(0)) + what.substring(1);
    }

    /** The 1-based column of the error on its line, or -1 when the parser did not say. */
    public static int column(JsonProcessingException e) {
        return e.getLocation() == null ? -1 : e.getLocation().getColumnNr();
    }
}
