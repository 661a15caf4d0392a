package org.collections.stack;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.h2.H2Backend;

/**
 * A MongoDB wire-protocol STAND-IN (mongo-java-server), not MongoDB: it lets the MongoDB adapter's
 * contract tests run where no mongod can be installed. Usage: StandIn PORT DATA_DIR.
 * The H2 backend keeps every database in DATA_DIR/mongo.mv.db, so a restart finds its data.
 */
public final class StandIn {
    private StandIn() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: StandIn PORT DATA_DIR");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        Path dataDir = Path.of(args[1]);
        Files.createDirectories(dataDir);

        H2Backend backend = new H2Backend(dataDir.resolve("mongo.mv.db").toString());
        MongoServer server = new MongoServer(backend);
        // Loopback only: the stand-in has no authentication.
        server.bind("127.0.0.1", port);
        System.out.println("mongo stand-in (mongo-java-server, H2 backend) listening on 127.0.0.1:" + port);

        CountDownLatch stopped = new CountDownLatch(1);
        // SIGTERM runs the hooks: shutdown() closes the backend, which writes the MVStore file
        // out, so nothing acknowledged is lost on a clean stop.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("mongo stand-in stopping");
            server.shutdown();
            stopped.countDown();
        }, "stand-in-shutdown"));
        stopped.await();
    }
}
