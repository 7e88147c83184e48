package io.nodelabeller.source.cpu;

import com.sun.jna.Function;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;
import io.nodelabeller.source.HostFs;

import java.util.Locale;

/**
 * The CPUID instruction on the processor the agent runs on, for what {@code /proc/cpuinfo} does not show (the
 * hypervisor's vendor, AVX10, the nominal base frequency): NFD runs CPUID in its own process
 * (klauspost/cpuid), and so does this, through JNA, on x86-64 only (arm64 has no CPUID; NFD reads nothing there
 * either).
 *
 * <p>No C library ships CPUID as a function, so the function is the 27 bytes of x86-64 code below, in a page of its
 * own mapped writable, filled, then made read-and-execute (never both writable and executable), called through
 * JNA's {@link Function}. It is {@code void cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4])} in the System V
 * calling convention (leaf in edi, subleaf in esi, out in rdx):
 * <pre>
 *   53           push %rbx              ; rbx is callee-saved, cpuid overwrites it
 *   49 89 d0     mov  %rdx,%r8
 *   89 f8        mov  %edi,%eax
 *   89 f1        mov  %esi,%ecx
 *   0f a2        cpuid
 *   41 89 00     mov  %eax,(%r8)
 *   41 89 58 04  mov  %ebx,0x4(%r8)
 *   41 89 48 08  mov  %ecx,0x8(%r8)
 *   41 89 50 0c  mov  %edx,0xc(%r8)
 *   5b           pop  %rbx
 *   c3           ret
 * </pre>
 * (GNU as assembles the listing to exactly these bytes; {@code CpuidNativeTest} runs them and checks leaf 0 against
 * the test machine's own {@code /proc/cpuinfo}.)
 *
 * <p>CPUID describes the machine the agent runs on, not a host tree: it is read only when the host tree is that
 * machine ({@link HostFs#isRunningMachine()}: the same boot id), so a tree copied from another machine, a test's
 * tree included, never mixes with this machine's processor.
 */
public interface Cpuid {

    /** One leaf's registers: eax, ebx, ecx, edx. */
    int[] query(int leaf, int subleaf);

    /** How the cpu source gets CPUID for a host tree. */
    interface Access {
        /** CPUID of the processor {@code host} runs on; throws {@link Unavailable} naming why there is none. */
        Cpuid forHost(HostFs host) throws Unavailable;
    }

    /** No CPUID for this host tree, and why (one sentence). */
    final class Unavailable extends Exception {
        private final boolean expected;

        Unavailable(String message, boolean expected) {
            super(message, null, false, false);
            this.expected = expected;
        }

        /** Whether this is the normal case (a tree from another machine, arm64) rather than a failure worth a warning. */
        public boolean expected() {
            return expected;
        }
    }

    /** The running machine's CPUID, for a host tree that is the running machine. */
    Access RUNNING = host -> {
        if (!isX86()) {
            throw new Unavailable("no CPUID on " + System.getProperty("os.arch"), true);
        }
        if (!host.isRunningMachine()) {
            throw new Unavailable("the host tree is not the machine the agent runs on (its boot id differs or is absent)", true);
        }
        return Native64.instance();
    };

    static boolean isX86() {
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return arch.equals("amd64") || arch.equals("x86_64");
    }

    /** The machine-code function, made once per process; CPUID answers do not change while a machine runs. */
    final class Native64 implements Cpuid {
        private static final byte[] CODE = {
                0x53, 0x49, (byte) 0x89, (byte) 0xd0, (byte) 0x89, (byte) 0xf8, (byte) 0x89, (byte) 0xf1, 0x0f, (byte) 0xa2,
                0x41, (byte) 0x89, 0x00, 0x41, (byte) 0x89, 0x58, 0x04, 0x41, (byte) 0x89, 0x48, 0x08,
                0x41, (byte) 0x89, 0x50, 0x0c, 0x5b, (byte) 0xc3};
        private static final int PROT_READ = 1;
        private static final int PROT_WRITE = 2;
        private static final int PROT_EXEC = 4;
        private static final int MAP_PRIVATE = 0x02;
        private static final int MAP_ANONYMOUS = 0x20;
        private static final long PAGE = 4096;
        private static Native64 instance;
        private static String failure;

        /** libc's page mapping calls, as JNA binds them. */
        interface LibC extends Library {
            Pointer mmap(Pointer addr, NativeLong length, int prot, int flags, int fd, NativeLong offset);

            int mprotect(Pointer addr, NativeLong length, int prot);

            int munmap(Pointer addr, NativeLong length);
        }

        private final Function function;

        private Native64(Function function) {
            this.function = function;
        }

        static synchronized Native64 instance() throws Unavailable {
            if (instance != null) {
                return instance;
            }
            if (failure != null) {
                throw new Unavailable(failure, false);
            }
            try {
                LibC libc = Native.load("c", LibC.class);
                NativeLong length = new NativeLong(PAGE);
                Pointer page = libc.mmap(null, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, new NativeLong(0));
                if (page == null || Pointer.nativeValue(page) == -1L) {
                    throw new IllegalStateException("mmap failed (errno " + Native.getLastError() + ")");
                }
                page.write(0, CODE, 0, CODE.length);
                if (libc.mprotect(page, length, PROT_READ | PROT_EXEC) != 0) {
                    int errno = Native.getLastError();
                    libc.munmap(page, length);
                    throw new IllegalStateException("mprotect(PROT_EXEC) refused (errno " + errno + "; a policy that forbids executable memory)");
                }
                instance = new Native64(Function.getFunction(page));
                return instance;
            } catch (RuntimeException | LinkageError e) {
                failure = "CPUID cannot run: " + e.getMessage();
                throw new Unavailable(failure, false);
            }
        }

        @Override
        public int[] query(int leaf, int subleaf) {
            // JNA passes a primitive array as a pointer to a native copy and copies it back after the call
            int[] out = new int[4];
            function.invokeVoid(new Object[] {leaf, subleaf, out});
            return out;
        }
    }
}
