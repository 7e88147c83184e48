package io.nodelabeller.template;

import java.util.List;

/** The parsed form of a template: Go's text/template parse tree, reduced to what rules can use. */
sealed interface Node {

    /** Literal text. */
    record Text(String text) implements Node {
    }

    /** {@code {{ pipeline }}}: its value is printed unless the pipeline declares or assigns variables. */
    record Action(int offset, Pipe pipe) implements Node {
    }

    /** {@code if}, {@code with} or {@code range}; {@code elseBody} is empty when there is no else. */
    record Control(Kind kind, int offset, Pipe pipe, List<Node> body, List<Node> elseBody) implements Node {
        enum Kind { IF, WITH, RANGE }
    }

    /**
     * {@code {{ template "name" pipeline }}}, or a {@code block}: runs the named template with dot the pipeline's
     * value (nil without one).
     */
    record Call(int offset, String name, Pipe pipe) implements Node {
    }

    /** {@code {{ break }}} or {@code {{ continue }}} inside a range. */
    record LoopJump(boolean isBreak) implements Node {
    }

    /**
     * Commands joined by '|'; each command's value is the last argument of the next. {@code vars} are the
     * variables the pipeline declares ({@code $x :=}) or, when {@code assign}, sets ({@code $x =}).
     */
    record Pipe(List<String> vars, boolean assign, List<Command> commands) {
    }

    /** A function call or an operand, with its arguments. */
    record Command(List<Arg> args) {
    }

    /** An operand of a command. */
    sealed interface Arg permits Field, Variable, Dot, Nil, Literal, Function, Chain, SubPipe {
    }

    /** {@code .a.b} from dot. */
    record Field(List<String> names) implements Arg {
    }

    /** {@code $x.a.b}; {@code $} is the data the template was executed with. */
    record Variable(String name, List<String> fields) implements Arg {
    }

    /** {@code .} */
    record Dot() implements Arg {
    }

    /** {@code nil} */
    record Nil() implements Arg {
    }

    /** A string, number, character or boolean constant: a String, Long, Double or Boolean. */
    record Literal(Object value) implements Arg {
    }

    /** The name of a function. */
    record Function(String name) implements Arg {
    }

    /** {@code (pipeline).a.b} */
    record Chain(Arg operand, List<String> fields) implements Arg {
    }

    /** {@code (pipeline)} */
    record SubPipe(Pipe pipe) implements Arg {
    }
}
