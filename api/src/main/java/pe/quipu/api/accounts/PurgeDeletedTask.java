package pe.quipu.api.accounts;

import com.fasterxml.jackson.databind.ObjectMapper;
import pe.quipu.api.http.OperatorTask;

import java.util.List;

/** {@code purge-deleted}: runs the 30-day purge now and answers how many accounts it removed. */
public final class PurgeDeletedTask extends OperatorTask {

    private final transient AccountPurge purge;

    public PurgeDeletedTask(AccountPurge purge, ObjectMapper json) {
        super("purge-deleted", List.of(), json);
        this.purge = purge;
    }

    record Answer(int purged) {
    }

    @Override
    protected Object run(Parameters parameters) {
        return new Answer(purge.purge());
    }
}
