package io.frsm.server.multiprocess;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A test class that starts node JVMs of its own. frsm-server's build runs these in a failsafe
 * execution of their own, one at a time, after the in-JVM integration tests (which {@code
 * -Dfrsm.it.forks=2} runs two test JVMs at a time): each already runs 3-6 JVMs on the 2-CPU test
 * machine, with start deadlines that a second test beside it could make it miss.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("multiprocess")
@interface MultiProcess {}
