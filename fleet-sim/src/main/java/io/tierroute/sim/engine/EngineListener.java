package io.tierroute.sim.engine;

import io.tierroute.selector.protocol.KvEvent;

/** What a worker reports as it runs: KV events, first tokens, completions. The simulator implements it. */
interface EngineListener {

    void kvEvent(KvEvent event);

    void firstToken(Sequence s, long now);

    /** Every {@code progressEvery} decoded tokens (see {@link Worker#progressEvery}), before the last. */
    void tokens(Sequence s, long now);

    void finished(Sequence s, long now);
}
