(* Cause_rc11_ptx_artifact.v -- hand-written, NOT generated.

   The main lemma of the ASPLOS'19 proof of the RC11 -> PTX mapping ("hb is in cause"), for
   the generated statement of mappings/rc11-ptx-artifact.map (Obligations_rc11_ptx_artifact.v):
   a happens-before edge of the source execution Xs that leaves a non-initial event is a
   program-order edge or a cause_base edge of the target execution Xt ([hb_in_cause]).

   The test suite compiles this file against a fresh export
   (mapcheck export-coq mappings/rc11-ptx-artifact.map), after the proof files it imports. When the generated statement changes, regenerate the export
   and fix this file.

   The proof follows the shape of hb = (sb | incl & sw)+:
   - an sb step from a non-initial event is a po step, and po of Xs is po of Xt;
   - an incl & sw step is a PTX sw step: the release side is pattern_rel, the release
     sequence (incl & rf; rmw)*; incl & rf between atomics is obs, the acquire side is
     pattern_acq, and the two ends are morally strong ([sw_in_target]);
   - no step enters an initial write, and po | cause_base is transitive.
   Only the first branch of PTX's sw is used, so the sc order [sco] is arbitrary.

   The facts on the strength of compiled accesses come from Strength_rc11_ptx_artifact.v. As in
   the Compilation file, the statement gives its inclusions only doubly negated, so the lemmas
   conclude [~ ~ ...]. *)
From Mapcheck Require Import Rel Dec Checks Exec Model_wf Mirror_wf Program Model_rc11_scoped Mirror_rc11_scoped Model_ptx_v6 Obligations_rc11_ptx_artifact Compilation_rc11_ptx_artifact Strength_rc11_ptx_artifact.

(* ------------------------------------------------------------------ *)
(* Well-formedness facts, for any execution                            *)

Section Wf.
Variable X : exec.
Hypothesis Wf : wf_consistent X.

(* po stays within threaded events: it never touches an initial write. *)
Lemma po_threaded_l : forall a b, po X a b -> ~ IW X a.
Proof.
  intros a b P Ia. apply (nn_incl _ _ a b (wf_consistent_po_int _ Wf) P). intro I.
  apply (nn_incl _ _ a b (wf_consistent_int_threaded _ Wf) I). intros [[_ Na] _]. exact (Na Ia).
Qed.

Lemma po_threaded_r : forall a b, po X a b -> ~ IW X b.
Proof.
  intros a b P Ib. apply (nn_incl _ _ a b (wf_consistent_po_int _ Wf) P). intro I.
  apply (nn_incl _ _ a b (wf_consistent_int_threaded _ Wf) I). intros [_ [_ Nb]]. exact (Nb Ib).
Qed.

(* M is R | W: fences are not memory events. *)
Lemma not_M_of_F : forall x, F X x -> ~ M X x.
Proof.
  intros x Fx Mx. apply (wf_consistent_M_def _ Wf x). left. split; [exact Mx|].
  intros [Rx|Wx]; [exact (kinds_FR _ x Wf Fx Rx) | exact (kinds_FW _ x Wf Fx Wx)].
Qed.

(* loc is reflexive on M and transitive; po is transitive. *)
Lemma loc_refl : forall x, M X x -> ~ ~ loc X x x.
Proof.
  intros x Mx N. apply (wf_consistent_loc_equivalence _ Wf x x). left.
  split; [split; [exact Mx | reflexivity] | exact N].
Qed.

Lemma loc_trans : forall a b c, loc X a b -> loc X b c -> ~ ~ loc X a c.
Proof.
  intros a b c Ab Bc N. apply (wf_consistent_loc_equivalence _ Wf a c). right. right.
  split; [exists b; split; assumption | exact N].
Qed.

Lemma po_trans : forall a b c, po X a b -> po X b c -> ~ ~ po X a c.
Proof. intros a b c Ab Bc. apply (nn_incl _ _ a c (wf_consistent_po_transitive _ Wf)). exists b. auto. Qed.

(* The shapes of rf and rmw. *)
Lemma rf_shape_nn : forall a b, rf X a b -> ~ ~ (W X a /\ R X b /\ loc X a b).
Proof.
  intros a b H. apply (nn_bind _ _ (nn_incl _ _ a b (wf_consistent_rf_shape _ Wf) H)).
  intros [[Wa Rb] L]. apply nn_ret. auto.
Qed.

Lemma rmw_shape_nn : forall a b, rmw X a b -> ~ ~ (R X a /\ W X b /\ po X a b /\ loc X a b).
Proof.
  intros a b H. apply (nn_bind _ _ (nn_incl _ _ a b (wf_consistent_rmw_shape _ Wf) H)).
  intros [[Ra Wb] [P L]]. apply nn_ret. auto.
Qed.

(* A release write is atomic. *)
Lemma A_of_W_rel : forall x, W X x -> rc11_scoped_E_REL X x -> ~ ~ rc11_scoped_A X x.
Proof.
  intros x Wx Rel. apply (nn_bind _ _ (RW_M X x Wf (or_intror Wx))). intro Mx. apply nn_ret.
  split; [exact Mx|]. cbv [rc11_scoped_E_REL set_union] in *. tauto.
Qed.

(* po composed with po? (either side) is po. *)
Lemma po_opt_po : forall a b c, po X a b -> opt (E X) (po X) b c -> ~ ~ po X a c.
Proof. intros a b c P [[_ <-]|Q]; [apply nn_ret, P | exact (po_trans a b c P Q)]. Qed.

Lemma opt_po_po : forall a b c, opt (E X) (po X) a b -> po X b c -> ~ ~ po X a c.
Proof. intros a b c [[_ <-]|Q] P; [apply nn_ret, P | exact (po_trans a b c Q P)]. Qed.

(* Two strong events related by incl are morally strong when one of them is not a memory
   event (a fence) or both are on one location. *)
Lemma ms_intro : forall a b, ptx_v6_STRONG X a -> ptx_v6_STRONG X b -> incl X a b ->
  ~ M X a \/ ~ M X b \/ loc X a b -> ptx_v6_morally_strong X a b.
Proof.
  intros a b Sa Sb I Ml.
  assert (Cd : ptx_v6_ms_candidates X a b).
  { right. right. exists a. split; [split; [exact Sa | reflexivity]|].
    exists b. split; [exact I | split; [exact Sb | reflexivity]]. }
  destruct Ml as [Na|[Nb|L]].
  - left. split; [exact Cd|]. intros [Ma _]. exact (Na Ma).
  - left. split; [exact Cd|]. intros [_ Mb]. exact (Nb Mb).
  - right. split; assumption.
Qed.

(* ---- po | cause_base is transitive ---- *)

Definition po_cause (sco : rel) : rel := union (po X) (ptx_v6_cause_base X sco).

Lemma po_cause_base : forall sco b c, ptx_v6_cause_base X sco b c ->
  forall a, po X a b -> ~ ~ ptx_v6_cause_base X sco a c.
Proof.
  intros sco b c H. unfold ptx_v6_cause_base in *.
  destruct H as [b c (b1 & O & S) | b m c (b1 & O & S) T]; intros a P;
    apply (nn_bind _ _ (po_opt_po a b b1 P O)); intro Q; apply nn_ret.
  - apply tc_once. exists b1. split; [right; exact Q | exact S].
  - apply (tc_step _ a m c); [|exact T]. exists b1. split; [right; exact Q | exact S].
Qed.

Lemma cause_base_po : forall sco a b, ptx_v6_cause_base X sco a b ->
  forall c, po X b c -> ~ ~ ptx_v6_cause_base X sco a c.
Proof.
  intros sco a b H. unfold ptx_v6_cause_base in *.
  induction H as [a b (a1 & O1 & a2 & S & O2) | a m b St _ IH]; intros c P.
  - apply (nn_bind _ _ (opt_po_po a2 b c O2 P)). intro Q. apply nn_ret. apply tc_once.
    exists a1. split; [exact O1|]. exists a2. split; [exact S | right; exact Q].
  - apply (nn_bind _ _ (IH c P)). intro T. apply nn_ret. exact (tc_step _ a m c St T).
Qed.

Lemma po_cause_trans : forall sco a b c, po_cause sco a b -> po_cause sco b c -> ~ ~ po_cause sco a c.
Proof.
  intros sco a b c [P|H] [Q|K].
  - apply (nn_bind _ _ (po_trans a b c P Q)). intro Pc. apply nn_ret. left. exact Pc.
  - apply (nn_bind _ _ (po_cause_base sco b c K a P)). intro Kc. apply nn_ret. right. exact Kc.
  - apply (nn_bind _ _ (cause_base_po sco a b H c Q)). intro Kc. apply nn_ret. right. exact Kc.
  - apply nn_ret. right. exact (tc_trans _ a b c H K).
Qed.

End Wf.

(* One step of the source's happens-before: sb or a synchronisation edge in incl. The body of
   [rc11_scoped_hb] is this, with [rc11_scoped_sw] written out. *)
Definition hb_step (X : exec) : rel := union (rc11_scoped_sb X) (inter (incl X) (rc11_scoped_sw X)).

(* ------------------------------------------------------------------ *)

Section Cause.
Variables (Ps Pt : program) (Xs Xt : exec).
Hypothesis C : compilation Ps Pt Xs Xt.

(* The strength of compiled accesses (Strength_rc11_ptx_artifact.v), for this compilation. *)
Let fences_in_target := Strength_rc11_ptx_artifact.fences_in_target Ps Pt Xs Xt C.
Let atomic_strong := Strength_rc11_ptx_artifact.atomic_strong Ps Pt Xs Xt C.
Let release_write := Strength_rc11_ptx_artifact.release_write Ps Pt Xs Xt C.
Let release_fence := Strength_rc11_ptx_artifact.release_fence Ps Pt Xs Xt C.
Let acquire_read := Strength_rc11_ptx_artifact.acquire_read Ps Pt Xs Xt C.
Let acquire_fence := Strength_rc11_ptx_artifact.acquire_fence Ps Pt Xs Xt C.
Let reads_not_red := Strength_rc11_ptx_artifact.reads_not_red Ps Pt Xs Xt C.
Let incl_in_target := Strength_rc11_ptx_artifact.incl_in_target Ps Pt Xs Xt C.
Let rmw_atomic := Strength_rc11_ptx_artifact.rmw_atomic Ps Pt Xs Xt C.
Let morally_strong_of_incl := Strength_rc11_ptx_artifact.morally_strong_of_incl Ps Pt Xs Xt C.

(* ---- The Compilation file's facts, for this compilation ---- *)

Let WfS := Xs_wf Ps Pt Xs Xt C.
Let WfT := Xt_wf Ps Pt Xs Xt C.
Let source_events_in_target := Compilation_rc11_ptx_artifact.source_events_in_target Ps Pt Xs Xt C.
Let writes_in_target := Compilation_rc11_ptx_artifact.writes_in_target Ps Pt Xs Xt C.
Let reads_in_target := Compilation_rc11_ptx_artifact.reads_in_target Ps Pt Xs Xt C.
Let po_in_target := Compilation_rc11_ptx_artifact.po_in_target Ps Pt Xs Xt C.
Let loc_in_target := Compilation_rc11_ptx_artifact.loc_in_target Ps Pt Xs Xt C.
Let rmw_in_target := Compilation_rc11_ptx_artifact.rmw_in_target Ps Pt Xs Xt C.
Let rf_in_target := proj1 (c_lift_rf _ _ _ _ C).

(* ---- Strong events of the target ---- *)

(* A source fence is a target fence: strong, and not a memory event. *)
Lemma strong_of_F : forall x, F Xs x -> ~ ~ (ptx_v6_STRONG Xt x /\ ~ M Xt x).
Proof.
  intros x Fx. apply (nn_bind _ _ (fences_in_target x Fx)). intro Ft.
  apply nn_ret. split; [left; exact Ft | exact (not_M_of_F Xt WfT x Ft)].
Qed.

(* A non-initial atomic of the source is strong in the target. *)
Lemma strong_of_A : forall x, ~ IW Xs x -> rc11_scoped_A Xs x -> ~ ~ ptx_v6_STRONG Xt x.
Proof.
  intros x Nx Ax. apply (nn_bind _ _ (atomic_strong x Nx Ax)). intro S. apply nn_ret. right. exact S.
Qed.

(* ---- The release sequence is obs ---- *)

(* One edge incl & rf between non-initial atomics is morally_strong & rf in the target. *)
Lemma rf_obs : forall x r, ~ IW Xs x -> rc11_scoped_A Xs x -> rc11_scoped_A Xs r ->
  inter (incl Xs) (rf Xs) x r -> ~ ~ (ptx_v6_obs Xt x r /\ loc Xs x r).
Proof.
  intros x r Nx Ax Ar [I Rf].
  apply (nn_bind _ _ (rf_shape_nn Xs WfS x r Rf)). intros (_ & Rr & L).
  apply (nn_bind _ _ (morally_strong_of_incl x r Nx (R_not_IW Xs r WfS Rr) Ax Ar I L)). intro Ms.
  apply nn_ret. split; [|exact L]. apply ptx_v6_obs_1. split; [exact Ms | exact (rf_in_target x r Rf)].
Qed.

(* (incl & rf; rmw)*; incl & rf from a non-initial atomic write to an atomic read is obs in the
   target; its ends are on one location. *)
Lemma chain_obs : forall x y, rtc (E Xs) (seq (inter (incl Xs) (rf Xs)) (rmw Xs)) x y ->
  ~ IW Xs x -> rc11_scoped_A Xs x ->
  forall r, inter (incl Xs) (rf Xs) y r -> rc11_scoped_A Xs r ->
  ~ ~ (ptx_v6_obs Xt x r /\ loc Xs x r).
Proof.
  intros x y H. induction H as [x _ | x z y S _ IH]; intros Nx Ax r Ir Ar.
  - exact (rf_obs x r Nx Ax Ar Ir).
  - destruct S as (r1 & Ir1 & Rw).
    apply (nn_bind _ _ (rmw_atomic r1 z Rw)). intros [Ar1 Az].
    apply (nn_bind _ _ (rmw_shape_nn Xs WfS r1 z Rw)). intros (_ & _ & P & L1).
    apply (nn_bind _ _ (IH (po_threaded_r Xs WfS r1 z P) Az r Ir Ar)). intros [Ozr Lzr].
    apply (nn_bind _ _ (rf_obs x r1 Nx Ax Ar1 Ir1)). intros [Oxr1 Lxr1].
    apply (nn_bind _ _ (rmw_in_target r1 z Rw)). intro Rwt.
    apply (nn_bind _ _ (loc_trans Xs WfS x r1 z Lxr1 L1)). intro Lxz.
    apply (nn_bind _ _ (loc_trans Xs WfS x z r Lxz Lzr)). intro Lxr.
    apply nn_ret. split; [exact (ptx_v6_obs_2 Xt x r1 z r Oxr1 Rwt Ozr) | exact Lxr].
Qed.

(* ---- The release and acquire sides ---- *)

(* [E_REL]; ([F]; sb)?; [W]; sb_loc?; [W] from a non-initial event is pattern_rel in the
   target. Its start is strong; it is a fence or on the location of the end. *)
Lemma release_side : forall a w w', ~ IW Xs a -> rc11_scoped_E_REL Xs a ->
  opt (E Xs) (seq (id_on (F Xs)) (rc11_scoped_sb Xs)) a w -> W Xs w ->
  opt (E Xs) (rc11_scoped_sb_loc Xs) w w' -> W Xs w' ->
  ~ ~ (ptx_v6_pattern_rel Xt a w' /\ ptx_v6_STRONG Xt a /\ (~ M Xt a \/ loc Xs a w') /\ ~ IW Xs w').
Proof.
  intros a w w' Na Rel Ow Ww Osl Ww'.
  apply (nn_bind _ _ (writes_in_target w' Ww')). intro Wt'.
  destruct Ow as [[_ <-] | (a1 & [Fa <-] & S)].
  - (* a is the release write: [W_REL]; po_loc?; [W] *)
    apply (nn_bind _ _ (A_of_W_rel Xs WfS a Ww Rel)). intro Aa.
    apply (nn_bind _ _ (strong_of_A a Na Aa)). intro Sa.
    apply (nn_bind _ _ (release_write a Na Ww Rel)). intro Wr.
    destruct Osl as [[Ea <-] | [S L]].
    + apply (nn_bind _ _ (source_events_in_target a Ea)). intro Et.
      apply (nn_bind _ _ (loc_refl Xs WfS a (proj1 Aa))). intro L.
      apply nn_ret. split; [|split; [exact Sa | split; [right; exact L | exact Na]]].
      left. exists a. split; [split; [exact Wr | reflexivity]|].
      exists a. split; [left; split; [exact Et | reflexivity] | split; [exact Wt' | reflexivity]].
    + destruct S as [P | [Ia _]]; [|exfalso; exact (Na Ia)].
      apply (nn_bind _ _ (po_in_target a w' P)). intro Q. apply (nn_bind _ _ (loc_in_target a w' L)). intro Lt.
      apply nn_ret.
      split; [|split; [exact Sa | split; [right; exact L | exact (po_threaded_r Xs WfS a w' P)]]].
      left. exists a. split; [split; [exact Wr | reflexivity]|].
      exists w'. split; [right; split; [exact Q | exact Lt] | split; [exact Wt' | reflexivity]].
  - (* a is a release fence po-before the write: [F_REL]; po; [W] *)
    destruct S as [P | [Ia _]]; [|exfalso; exact (Na Ia)].
    apply (nn_bind _ _ (strong_of_F a Fa)). intros [Sa Ma].
    apply (nn_bind _ _ (release_fence a Fa Rel)). intro Fr.
    assert (Pw' : ~ ~ po Xs a w').
    { destruct Osl as [[_ <-] | [S L]]; [apply nn_ret, P|].
      destruct S as [Q | [Iw _]]; [exact (po_trans Xs WfS a w w' P Q)|].
      exfalso. exact (po_threaded_r Xs WfS a w P Iw). }
    apply (nn_bind _ _ Pw'). intro P'. apply (nn_bind _ _ (po_in_target a w' P')). intro Q.
    apply nn_ret.
    split; [|split; [exact Sa | split; [left; exact Ma | exact (po_threaded_r Xs WfS a w' P')]]].
    right. exists a. split; [split; [exact Fr | reflexivity]|].
    exists w'. split; [exact Q | split; [exact Wt' | reflexivity]].
Qed.

(* [R & A]; (sb; [F])?; [E_ACQ] is pattern_acq in the target. Its end is strong; it is a fence
   or the read itself. *)
Lemma acquire_side : forall r b, R Xs r -> rc11_scoped_A Xs r ->
  opt (E Xs) (seq (rc11_scoped_sb Xs) (id_on (F Xs))) r b -> rc11_scoped_E_ACQ Xs b ->
  ~ ~ (ptx_v6_pattern_acq Xt r b /\ ptx_v6_STRONG Xt b /\ (~ M Xt b \/ r = b)).
Proof.
  intros r b Rr Ar O Acq. pose proof (R_not_IW Xs r WfS Rr) as Nr.
  pose proof (reads_not_red r Rr) as Nred.
  apply (nn_bind _ _ (reads_in_target r Rr)). intro Rt.
  destruct O as [[Er <-] | (z & S & [Fz <-])].
  - (* an acquire read: [R \ RED]; po_loc?; [R_ACQ], with po_loc? the identity *)
    apply (nn_bind _ _ (source_events_in_target r Er)). intro Et.
    apply (nn_bind _ _ (acquire_read r Rr Acq)). intro Ra.
    apply (nn_bind _ _ (strong_of_A r Nr Ar)). intro Sr.
    apply nn_ret. split; [|split; [exact Sr | right; reflexivity]].
    left. exists r. split; [split; [split; [exact Rt | exact Nred] | reflexivity]|].
    exists r. split; [left; split; [exact Et | reflexivity] | split; [exact Ra | reflexivity]].
  - (* an acquire fence po-after the read: [R \ RED]; po; [F_ACQ] *)
    destruct S as [P | [Ir _]]; [|exfalso; exact (Nr Ir)].
    apply (nn_bind _ _ (po_in_target r z P)). intro Q.
    apply (nn_bind _ _ (acquire_fence z Fz Acq)). intro Fa.
    apply (nn_bind _ _ (strong_of_F z Fz)). intros [Sz Mz].
    apply nn_ret. split; [|split; [exact Sz | left; exact Mz]].
    right. exists r. split; [split; [split; [exact Rt | exact Nred] | reflexivity]|].
    exists z. split; [exact Q | split; [exact Fa | reflexivity]].
Qed.

(* ---- Synchronisation ---- *)

(* An sw edge ends at a read or a fence, never at an initial write. *)
Lemma sw_end_not_IW : forall a b, rc11_scoped_sw Xs a b -> ~ IW Xs b.
Proof.
  intros a b (m & _ & r & (r1 & _ & [[Rr _] <-]) & b1 & O & [_ ->]).
  destruct O as [[_ <-] | (z & _ & [Fz <-])].
  - exact (R_not_IW Xs r1 WfS Rr).
  - exact (F_not_IW Xs z WfS Fz).
Qed.

(* A synchronisation edge of the source in incl, from a non-initial event, is an sw edge of
   the target (first branch: morally_strong & (pattern_rel; obs; pattern_acq)). *)
Lemma sw_in_target : forall sco a b, ~ IW Xs a -> inter (incl Xs) (rc11_scoped_sw Xs) a b ->
  ~ ~ ptx_v6_sw Xt sco a b.
Proof.
  intros sco a b Na [I Sw]. pose proof (sw_end_not_IW a b Sw) as Nb.
  destruct Sw as (m & (a1 & [Rel <-] & w & Ow & w2 & (w1 & [Ww <-] & Osl) & w3 & [[Ww2 Aw2] <-] & Ch)
                  & r & (r1 & Irf & [[Rr Ar] <-]) & b1 & Oacq & [Acq ->]).
  apply (nn_bind _ _ (release_side a w w2 Na Rel Ow Ww Osl Ww2)). intros (Prel & Sa & Ma & Nw2).
  apply (nn_bind _ _ (chain_obs w2 m Ch Nw2 Aw2 r1 Irf Ar)). intros [Ob Lc].
  apply (nn_bind _ _ (acquire_side r1 b Rr Ar Oacq Acq)). intros (Pacq & Sb & Mb).
  apply (nn_bind _ _ (incl_in_target a b Na Nb I)). intro It.
  (* morally strong: a fence at either end, or both on the chain's location *)
  assert (Ml : ~ ~ (~ M Xt a \/ ~ M Xt b \/ loc Xt a b)).
  { destruct Ma as [Na'|La]; [apply nn_ret; left; exact Na'|].
    destruct Mb as [Nb'|<-]; [apply nn_ret; right; left; exact Nb'|].
    apply (nn_bind _ _ (loc_trans Xs WfS a w2 r1 La Lc)). intro L.
    apply (nn_bind _ _ (loc_in_target a r1 L)). intro Lt. apply nn_ret. right. right. exact Lt. }
  apply (nn_bind _ _ Ml). intro Ml'. apply nn_ret. left. split.
  - exact (ms_intro Xt a b Sa Sb It Ml').
  - exists w2. split; [exact Prel|]. exists r1. split; [exact Ob | exact Pacq].
Qed.

(* ---- Happens-before ---- *)

(* One hb step from a non-initial event is po or cause_base in the target, and ends at a
   non-initial event. *)
Lemma step_in_target : forall sco x y, ~ IW Xs x -> hb_step Xs x y ->
  ~ ~ (po_cause Xt sco x y /\ ~ IW Xs y).
Proof.
  intros sco x y Nx [[P | [Ix _]] | S].
  - apply (nn_bind _ _ (po_in_target x y P)). intro Q.
    apply nn_ret. split; [left; exact Q | exact (po_threaded_r Xs WfS x y P)].
  - exfalso. exact (Nx Ix).
  - apply (nn_bind _ _ (sw_in_target sco x y Nx S)). intro St.
    apply (nn_bind _ _ (incl_in_events Xs x y WfS (proj1 S))). intros [Ex Ey].
    apply (nn_bind _ _ (source_events_in_target x Ex)). intro Ext. apply (nn_bind _ _ (source_events_in_target y Ey)). intro Eyt.
    apply nn_ret. split; [|exact (sw_end_not_IW x y (proj2 S))].
    right. apply tc_once. exists x. split; [left; split; [exact Ext | reflexivity]|].
    exists y. split; [exact St | left; split; [exact Eyt | reflexivity]].
Qed.

Lemma hb_po_cause : forall sco x y, tc (hb_step Xs) x y -> ~ IW Xs x -> ~ ~ po_cause Xt sco x y.
Proof.
  intros sco x y H. induction H as [x y S | x z y S _ IH]; intro Nx.
  - apply (nn_bind _ _ (step_in_target sco x y Nx S)). intros [T _]. apply nn_ret, T.
  - apply (nn_bind _ _ (step_in_target sco x z Nx S)). intros [T Nz].
    apply (nn_bind _ _ (IH Nz)). intro T'. exact (po_cause_trans Xt WfT sco x z y T T').
Qed.

(* hb of the source, from a non-initial event, is po or cause_base of the target. *)
Lemma hb_in_cause : forall sco a b, rc11_scoped_hb Xs a b ->
  ~ ~ (IW Xs a \/ po Xt a b \/ ptx_v6_cause_base Xt sco a b).
Proof.
  intros sco a b H. apply (nn_bind _ _ (nn_em (IW Xs a))). intros [Ia|Na].
  - apply nn_ret. left. exact Ia.
  - apply (nn_bind _ _ (hb_po_cause sco a b H Na)).
    intros [P|K]; apply nn_ret; right; [left|right]; assumption.
Qed.

End Cause.
