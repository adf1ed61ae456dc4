package io.palisade.coordinator;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import java.util.zip.CRC32;

/**
 * The classpath of a test JVM's child JVMs, made once per test JVM: Lance's JNI library first, in a jar of its own
 * that holds it uncompressed, then this JVM's classpath with each directory (test classes) as a jar of its files.
 * Same classes in the same order, so the children run the code under test; two start-up costs go away:
 * <ul>
 *   <li>Lance's loader copies its library from its class loader's resource to a temporary file on every start;
 *       found first in the STORED jar it is copied instead of inflated from the 65 MB entry of Lance's jar (about a
 *       second of CPU per child on this machine, docs/benchmarks.md);</li>
 *   <li>the JVM archives no class of a classpath that holds a non-empty directory, so without the jars a
 *       class-data archive ({@link ChildCds}) would be empty.</li>
 * </ul>
 * The jars lie under {@code target/} at paths that stay put for the test JVM's life (an archive records the jars'
 * sizes and times) and are deleted when it exits.
 */
public final class ChildClasspath {
    private static String classpath;

    private ChildClasspath() {
    }

    /** The children's {@code -cp} value. */
    public static synchronized String get() throws IOException {
        if (classpath == null) {
            List<String> out = new ArrayList<>(List.of(nativeLibJar().toString()));
            int n = 0;
            for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
                Path p = Path.of(e);
                out.add(Files.isDirectory(p) ? jarOf(p, n++).toString() : e);
            }
            classpath = String.join(File.pathSeparator, out);
        }
        return classpath;
    }

    private static Path target(String name) {
        Path jar = Path.of("target").toAbsolutePath().resolve(name + "-" + ProcessHandle.current().pid() + ".jar");
        jar.toFile().deleteOnExit();
        return jar;
    }

    private static Path nativeLibJar() throws IOException {
        Path jar = target("child-nativelib");
        String arch = System.getProperty("os.arch", "").equals("aarch64") ? "linux-aarch64" : "linux-x86-64";
        String res = "nativelib/" + arch + "/liblance_jni.so";
        byte[] bytes;
        try (InputStream in = org.lance.Dataset.class.getResourceAsStream("/" + res)) {
            if (in == null) {
                throw new IllegalStateException("Lance's jar has no " + res);
            }
            bytes = in.readAllBytes();
        }
        CRC32 crc = new CRC32();
        crc.update(bytes);
        Files.createDirectories(jar.getParent());
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            JarEntry e = new JarEntry(res);
            e.setMethod(JarEntry.STORED);
            e.setSize(bytes.length);
            e.setCompressedSize(bytes.length);
            e.setCrc(crc.getValue());
            out.putNextEntry(e);
            out.write(bytes);
            out.closeEntry();
        }
        return jar;
    }

    private static Path jarOf(Path dir, int n) throws IOException {
        Path jar = target("child-cp" + n);
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
             Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                out.putNextEntry(new JarEntry(dir.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, out);
                out.closeEntry();
            }
        }
        return jar;
    }
}
