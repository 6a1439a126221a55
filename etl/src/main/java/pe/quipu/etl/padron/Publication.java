package pe.quipu.etl.padron;

/**
 * How a padrón load puts its file in service, decided from what it would change (docs/decisions.md, "Registry
 * changes"). Either way the change log gets the same rows, and readers see the old registry or the new one, never a
 * mix.
 */
enum Publication {

    /** Into an empty registry: build a new table and swap it in; the change log starts from it (contract §11). */
    FIRST_LOAD,
    /** Apply the inserts, updates and deletes to the registry in service. */
    DIFFERENCE,
    /** Build a new table from the file and the registry in service, index it and swap it in. */
    REBUILD;

    /**
     * Above this share of the registry in service added, changed or removed, building a new registry costs less than
     * applying the difference: measured on a generated 2 M-row padrón (docs/decisions.md, "Registry changes").
     */
    static final double REBUILD_ABOVE = 0.10;

    /**
     * @param inService          records in service
     * @param differing          records the file adds, changes (any published field) or removes
     * @param searchIndexMissing whether search by name is on but the registry in service has no trigram index (a
     *                           load with search off built it): only a new table gets one
     */
    static Publication choose(long inService, long differing, boolean searchIndexMissing) {
        if (inService == 0) {
            return FIRST_LOAD;
        }
        if (searchIndexMissing || differing > REBUILD_ABOVE * inService) {
            return REBUILD;
        }
        return DIFFERENCE;
    }
}
