-- Browser sessions and sign-ins under way, shared by every API replica (digests and sealed secrets only).
-- CreateTable
CREATE TABLE "BrowserSession" (
    "idDigest" TEXT NOT NULL PRIMARY KEY,
    "identity" TEXT NOT NULL,
    "sealedTokens" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "recheckAt" DATETIME NOT NULL,
    "renewingUntil" DATETIME
);

-- CreateTable
CREATE TABLE "PendingSignIn" (
    "stateDigest" TEXT NOT NULL PRIMARY KEY,
    "browserDigest" TEXT NOT NULL,
    "sealed" TEXT NOT NULL,
    "next" TEXT NOT NULL,
    "redirectUri" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "BrowserSession_expiresAt_idx" ON "BrowserSession"("expiresAt");

-- CreateIndex
CREATE INDEX "PendingSignIn_expiresAt_idx" ON "PendingSignIn"("expiresAt");
