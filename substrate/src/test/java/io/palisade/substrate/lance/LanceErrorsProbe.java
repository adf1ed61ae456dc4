package io.palisade.substrate.lance;

/** Lets surface guards in other packages ask how Palisade classifies a Lance error. */
public final class LanceErrorsProbe {
    private LanceErrorsProbe() {
    }

    /** Whether Palisade reads {@code e} as Lance's WhenMatched Fail finding a key. */
    public static boolean isMatchedFail(Throwable e) {
        return LanceErrors.isMatchedFail(e);
    }
}
