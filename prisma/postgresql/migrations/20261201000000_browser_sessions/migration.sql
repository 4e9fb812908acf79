-- Browser sessions and sign-ins under way, shared by every API replica (digests and sealed secrets only).
-- CreateTable
CREATE TABLE "BrowserSession" (
    "idDigest" TEXT NOT NULL,
    "identity" TEXT NOT NULL,
    "sealedTokens" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "recheckAt" TIMESTAMP(3) NOT NULL,
    "renewingUntil" TIMESTAMP(3),

    CONSTRAINT "BrowserSession_pkey" PRIMARY KEY ("idDigest")
);

-- CreateTable
CREATE TABLE "PendingSignIn" (
    "stateDigest" TEXT NOT NULL,
    "browserDigest" TEXT NOT NULL,
    "sealed" TEXT NOT NULL,
    "next" TEXT NOT NULL,
    "redirectUri" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PendingSignIn_pkey" PRIMARY KEY ("stateDigest")
);

-- CreateIndex
CREATE INDEX "BrowserSession_expiresAt_idx" ON "BrowserSession"("expiresAt");

-- CreateIndex
CREATE INDEX "PendingSignIn_expiresAt_idx" ON "PendingSignIn"("expiresAt");
