CREATE INDEX "applied_calls_applied_at_idx" ON "avatar"."applied_calls" USING btree ("applied_at");--> statement-breakpoint
CREATE INDEX "inbox_handled_at_index" ON "avatar"."inbox" USING btree ("handled_at");--> statement-breakpoint
CREATE INDEX "refresh_tokens_expires_at_idx" ON "identity"."refresh_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "inbox_handled_at_index" ON "guild"."inbox" USING btree ("handled_at");--> statement-breakpoint
CREATE INDEX "inbox_handled_at_index" ON "marketplace"."inbox" USING btree ("handled_at");--> statement-breakpoint
CREATE INDEX "inbox_handled_at_index" ON "quest"."inbox" USING btree ("handled_at");--> statement-breakpoint
CREATE INDEX "inbox_handled_at_index" ON "tracking"."inbox" USING btree ("handled_at");