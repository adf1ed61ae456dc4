package io.palisade.cli;

import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

@Command(name = "demo", description = "Show the fencing rules at work.")
final class DemoCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.out.println("palisade demo");
        return 0;
    }
}
