-- Notifications decided for a receiver, stored once before they are sent (apps/api/src/notifications).
-- CreateTable
CREATE TABLE "NotificationDelivery" (
    "id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "nginx" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "receiver" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "NotificationDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "NotificationDelivery_state_createdAt_idx" ON "NotificationDelivery"("state", "createdAt");
